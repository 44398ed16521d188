"""Team work on one project file: packages and their merging, assignment, rater quality and
exclusion, crowd batches, invitations and web studies (the hub adapter is app/hub)."""
