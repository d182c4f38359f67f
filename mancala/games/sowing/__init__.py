"""Kalah and Sungka beyond their rules: the numba engine, the drawing, move events, the solver."""
