"""How this copy of simrate is installed: where its data files are and which version it is
(`locations.py`). Below the core, so that every folder may ask, and apart from the top
folder's own modules (the command line, `__main__`), which import everything else."""
