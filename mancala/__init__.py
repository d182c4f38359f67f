"""The Mancala AI lab: rules, players, networks, matches and learning for two-player games."""
