"""The team hub: a PostgreSQL database that every replica syncs through."""
