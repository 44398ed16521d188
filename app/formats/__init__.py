"""Readers and writers of files. Never imports Qt."""
