"""The command line built from the subcommands: the registry, the dispatch, the help texts
and the check of the arguments' text."""
