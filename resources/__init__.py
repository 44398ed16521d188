"""Installed as the data package `simrate._resources`: scale definitions, guideline texts, icons."""
