"""Learning: the practice loop's parts (recording, refitting, the promotion gate)."""
