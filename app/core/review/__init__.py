"""Review: the adjudication queue's order and the index of items that need a verdict."""
