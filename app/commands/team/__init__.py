"""Subcommands for work shared with others: packages, assignment, the hub team, crowd
studies and the web server."""
