"""One module per subcommand: <name>_cmd.run(args) -> exit status."""
