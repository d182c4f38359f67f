"""Kalah and Sungka beyond their rules: the numba engine, the drawing, move events, the solver
and the board seen from one side (`view`)."""
