"""Later edit wins for every kind of change between replicas and the hub: the push of
adjudications, exclusions and undone ratings with the hub's answer (push_others.py), and
the pull's side (later_wins.py)."""
