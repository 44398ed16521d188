"""Files read into a project or beside it: the import pipeline, machine scores, the
ratings preview and the evaluation of system scores."""
