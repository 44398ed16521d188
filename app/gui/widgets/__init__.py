"""Widgets more than one view shows: the scale, the score keys and typed score, the pair's texts."""
