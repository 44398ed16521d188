"""The dataset folder export: its columns, facts, splits, privacy screen, pseudonyms and
the writing of its files."""
