"""Helpers every test may import: small projects, a full disk, the command line, a window driven from another process."""
