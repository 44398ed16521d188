"""The link to the hub: connections, backoff, the exchange of a sync round (direct or through the sync service) and the replica's own tables."""
