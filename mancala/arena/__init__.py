"""The arena: what players are measured against (matches, sets of solved positions)."""
