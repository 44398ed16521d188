"""Subcommands that review the ratings: agreement, flagged items, gold, adjudication,
check items, annotators and the machine's scores."""
