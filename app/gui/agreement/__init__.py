"""The organizer's agreement pictures: the dashboard dock (with its rater table and the
machine raters' panel), the full-window Agreement view, the Pearson heatmap, the score
distribution chart, and the watcher that recomputes them as ratings arrive."""
