"""Learning: teacher, practice loop, learning curve, promotion gate, DQN and environments."""
