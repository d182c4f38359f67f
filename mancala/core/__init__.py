"""Small helpers shared by every layer of the lab (no imports from the rest of it)."""
