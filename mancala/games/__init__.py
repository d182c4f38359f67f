"""The games layer beside `mancala.game_state` (the rules): what a move does, seed by seed."""
