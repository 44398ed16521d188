"""Readers of input files: pair lists, ratings, crowd batches, machine scores and the shared-task formats."""
