"""Small helpers every layer may use: atomic writes, the CLI, stopping, deadlines, tables."""
