"""Crowd work: a results file brought in, the review and bonus files written, a web
study's pool checked."""
