"""organizer."""
