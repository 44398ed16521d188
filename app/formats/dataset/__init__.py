"""The dataset folder: its data files, data card, Croissant metadata, and writing it all or nothing."""
