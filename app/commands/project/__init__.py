"""Subcommands about one project file and what goes in and out of it: new, import, info,
export, pyramid, evaluate, check."""
