"""Team work: the PostgreSQL hub (schema, people, join) and the sync engine of replicas."""
