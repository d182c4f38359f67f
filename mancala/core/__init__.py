"""Small helpers every layer may use: the command-line convention (`cli`), stopping on
Ctrl+C or SIGTERM (`stopping`) and a quiet TensorFlow import (`quiet`)."""
