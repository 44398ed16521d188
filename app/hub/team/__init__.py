"""The team's work on the hub: publishing, people, joining, sync rounds and what they apply to the replica, web studies on the hub and sync-service tokens."""
