"""The organizer's views: the adjudication queue, the annotator report, every rating of an
item, the team hub and web studies windows."""
