"""Installed as the data package `simrate._sample_data`: our small sample files, one per format."""
