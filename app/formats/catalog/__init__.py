"""The one registry of file formats, which every other folder of formats may read."""
