"""Annotators' sync through `simrate serve` (issue 33): the organizer's sync links
(tokens.py), the replica's rounds over HTTP (client.py) and joining by a link (joining.py);
the hub's side is hub_schema/service.py, the server's app/web/sync_service.py."""
