"""Installed as the data package `app._resources`: scale definitions, guideline texts, icons."""
