"""Pyramid files: the model of summary content units, and the pairs and questions derived from them."""
