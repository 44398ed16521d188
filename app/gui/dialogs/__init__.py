"""Dialogs opened from the window."""
