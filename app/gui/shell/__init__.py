"""The window around the views: status items and the hub link."""
