"""Agreement written out: the tables of the agreement report (overall, per group, per
annotator), the long report of the command line, and agreement over time."""
