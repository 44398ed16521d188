"""Importing into a project: items and ratings read from frames, logged so an import can be undone."""
