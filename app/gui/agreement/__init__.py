"""The organizer's agreement pictures: the full-window Agreement view, the Pearson heatmap,
the score distribution chart, and the watcher that recomputes them as ratings arrive."""
