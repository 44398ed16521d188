"""The subcommands, one module each (<name>_cmd.py: `add_parser(sub)` and `run(args)` ->
exit status), in a folder by the area they serve: project (files in and out), review,
team; parser builds the command line from them, base holds what they are built with."""
