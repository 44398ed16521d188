"""Machine raters: how a model compares with the human raters (the alt-test and the rest)."""
