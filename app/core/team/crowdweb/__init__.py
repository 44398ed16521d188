"""The web page's rules beside the study tables: flood limits (flood.py) and a study's
page settings (options.py)."""
