"""Small helpers every layer may use: atomic writes, the CLI, stopping, deadlines, tables and
where the lab keeps its files (`paths`)."""
