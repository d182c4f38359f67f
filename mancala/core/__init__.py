"""Small helpers every layer may use (no imports from the rest of the lab): the
command-line convention (`cli`), stopping on Ctrl+C or SIGTERM (`stopping`), a quiet
TensorFlow import (`quiet`) and deadlines for searches (`deadline`)."""
