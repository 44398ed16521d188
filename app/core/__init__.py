"""The domain model: no Qt, no PostgreSQL client, no formats or services (pyproject.toml's import contracts)."""
