"""Installed as the data package `app._sample_data`: our small sample files, one per format."""
