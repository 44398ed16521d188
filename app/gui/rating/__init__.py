"""The annotator's view: the rating panel, the item list, progress and guidelines."""
