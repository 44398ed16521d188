"""DUCView pyramid files, and pyramids turned into pairs a team can rate."""
