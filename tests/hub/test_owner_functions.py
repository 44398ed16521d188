"""The hub's functions and whose rights they run with. A function a client may call that
runs as the owner (SECURITY DEFINER) pins its own search_path, so no client's schema can
put a function or operator of its own in the owner's way. The owner's helpers that no
client may call (web_open_study, web_lease_row, next_stamp, ...) have neither: they only
ever run inside one of those functions, as the owner and on its search_path, and each
switch of search_path costs the hub a re-check of every cached plan (about 0.014 ms a
call, measured; a web rating used to make seven). A function without its own search_path
that a client may call runs with the client's rights: one of the doors below. Trigger
functions keep their own rights and path: they fire for whoever writes their table."""

from __future__ import annotations

from tests.hub.webhub import published_study

#: Functions a client calls with its own rights (row-level security and the triggers
#: decide what they may write), on the client's search_path.
DOORS = {"ack_replica", "put_rating", "put_verdict", "put_exclusion"}

FUNCTIONS = """
SELECT p.proname, p.oid::regprocedure::text, p.prosecdef,
       coalesce(array_to_string(p.proconfig, ' '), '') LIKE '%search_path=%',
       EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
               WHERE a.grantee <> p.proowner AND a.privilege_type = 'EXECUTE'),
       p.prorettype = 'trigger'::regtype
FROM pg_proc p WHERE p.pronamespace = 'simrate'::regnamespace ORDER BY 2"""


def test_owner_functions_pin_their_path_and_helpers_are_the_owners_alone(hub, tmp_path):
    published_study(hub, tmp_path, items=10, checks=0, per_task=2, n_checks=0, annotator=None)
    with hub.admin() as admin:
        rows = admin.execute(FUNCTIONS).fetchall()
    names = {row[0] for row in rows}
    assert {"web_rate_show", "web_open_study", "next_stamp", "sync_round"} <= names
    for name, signature, definer, pinned, callable_by_others, trigger in rows:
        if definer:
            assert pinned, f"{signature} runs as the owner on the caller's search_path"
        elif not pinned and callable_by_others:
            assert name in DOORS, f"{signature}: a client may call it on its own path"
        if not trigger and not callable_by_others:  # the owner's helpers, every one
            assert not definer and not pinned, f"{signature} switches search_path"
    helpers = {row[0]: row for row in rows if not row[3]}
    for name in ("web_open_study", "web_lease_row", "web_expire", "web_make_room",
                 "web_unrated_count", "web_unrated_cap", "web_release", "sync_person",
                 "sync_refused", "channel_for", "next_stamp", "stamp_cap", "log_refused",
                 "web_check_study", "web_worker_name"):
        assert name in helpers, f"{name} switches search_path at every call"
        assert not helpers[name][2] and not helpers[name][4], helpers[name]
