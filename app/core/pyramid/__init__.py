"""pyramid."""
