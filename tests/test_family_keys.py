"""Facts an earlier version filed under a model's own word for a key ("current_city") take part in their
family ("city") after the upgrade (migration 0033, db/family_keys.py): a later value replaces them, the
topics' read finds the current one first, their history is kept, and an erased one stays erased when
its turn is extracted again under the family's key."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from memex import backfill, pipeline
from memex.db import family_keys
from memex.db.migrations import MigrationUnfinished, apply_migrations
from memex.extraction import aliases
from memex.jobs import SupersessionJob
from tests.conftest import Tenant, api_client, database_of_its_own, users_lock_holder


def _facts(tenant, key: str | None = None) -> list[dict]:
    memories = tenant.get(f"/v1/users/{tenant.user}/memories",
                          params={"include_inactive": "true", "limit": 500}).json()["memories"]
    return [m for m in memories if m["memory_type"] == "semantic" and (key is None or m["key"] == key)]


def filed_as(ctx, tenant, old: str, new: str, every_user: bool = False) -> None:
    """The user's facts under `old` (or every user's of the tenant) filed under `new` (and their
    dedupe keys), as a version of memex before the aliases (extraction/aliases.py) stored what a
    model filed under its own word."""
    with ctx.db.transaction() as conn:
        conn.execute(
            """UPDATE memories SET key = %(new)s,
                      dedupe_key = replace(dedupe_key, ':' || %(old)s || ':', ':' || %(new)s || ':')
               WHERE tenant_id = %(t)s AND key = %(old)s AND (%(u)s::text IS NULL OR user_id = %(u)s)""",
            {"old": old, "new": new, "t": tenant.id, "u": None if every_user else tenant.user})


def _migrate(ctx) -> None:
    with ctx.db.connection().cursor() as cur:
        family_keys.migrate(cur)


def _history(tenant, memory_id: str) -> list[tuple[str, str, bool]]:
    response = tenant.get(f"/v1/memories/{memory_id}/history")
    assert response.status_code == 200, response.text
    return [(m["key"], m["value"], m["active"]) for m in response.json()["history"]]


def _state(ctx) -> dict[str, list]:
    with ctx.db.connection().cursor() as cur:
        return {"memories": cur.execute("""SELECT id, key, value, active, valid_from, valid_to, dedupe_key
                                           FROM memories ORDER BY id""").fetchall(),
                "memory_links": cur.execute("SELECT memory_id, replaced_id FROM memory_links ORDER BY 1, 2").fetchall(),
                "turns": cur.execute("SELECT id, candidates FROM turns ORDER BY id").fetchall()}


def test_two_current_cities_of_one_family_are_resolved_with_their_history_and_the_migration_is_idempotent(ctx):
    with database_of_its_own(ctx, "memex_family_keys") as own, api_client(own) as client:
        tenant = Tenant(own, client)
        tenant.turn("I live in Berlin.", timestamp="2026-01-01T10:00:00Z")
        tenant.turn("I live in Lisbon.", timestamp="2026-03-01T10:00:00Z")
        filed_as(own, tenant, "city", "current_city")
        tenant.turn("I moved to Porto.", timestamp="2026-05-01T10:00:00Z")
        # what the aliases left: Porto under the family's key beside the current_city Lisbon, both current
        assert {(m["key"], m["value"]) for m in _facts(tenant) if m["active"]} == {("current_city", "Lisbon"),
                                                                                    ("city", "Porto")}
        pending = tenant.turn("Hello!", timestamp="2026-05-02T10:00:00Z").json()["turn_id"]
        with own.db.transaction() as conn:  # as a turn an earlier version extracted and did not decide yet
            conn.execute("""UPDATE turns SET status = 'processing', resolved_at = NULL, candidates = '[{"type": "fact",
                              "key": "job_title", "value": "nurse", "content": "The user is a nurse.",
                              "confidence": 0.9, "importance": 0.7, "source_message_id": null}]'
                            WHERE tenant_id = %s AND id = %s""", (tenant.id, pending))

        _migrate(own)

        cities = {m["value"]: m for m in _facts(tenant)}
        assert {(m["key"], m["value"], m["active"]) for m in cities.values()} == {
            ("city", "Berlin", False), ("city", "Lisbon", False), ("city", "Porto", True)}
        assert _history(tenant, cities["Porto"]["id"]) == [("city", "Berlin", False), ("city", "Lisbon", False),
                                                           ("city", "Porto", True)]
        assert cities["Lisbon"]["valid_to"] == cities["Porto"]["valid_from"]
        found = tenant.search("Where does she live?")
        assert found[0]["value"] == "Porto" and "Lisbon" not in {r["value"] for r in found}
        with own.db.connection().cursor() as cur:
            assert cur.execute("SELECT candidates->0->>'key' AS key FROM turns WHERE id = %s",
                               (pending,)).fetchone()["key"] == "role"
            # a turn extracted again finds what it wrote: the dedupe key names the family's key
            assert not cur.execute("SELECT dedupe_key FROM memories WHERE tenant_id = %s AND dedupe_key LIKE '%%current%%'",
                                   (tenant.id,)).fetchall()

        before = _state(own)
        _migrate(own)
        assert _state(own) == before


def test_a_city_said_after_the_upgrade_replaces_the_one_stored_under_an_alias(ctx):
    with database_of_its_own(ctx, "memex_family_keys") as own, api_client(own) as client:
        tenant = Tenant(own, client)
        tenant.turn("I live in Lisbon.", timestamp="2026-03-01T10:00:00Z")
        tenant.turn("I'm a nurse.", timestamp="2026-03-02T10:00:00Z")
        tenant.turn("I speak Spanish.", timestamp="2026-03-03T10:00:00Z")
        tenant.turn("I speak French.", timestamp="2026-03-04T10:00:00Z")
        filed_as(own, tenant, "city", "location")
        filed_as(own, tenant, "role", "job_title")
        filed_as(own, tenant, "language", "languages")
        # said again since under the family's key, which holds several: two Spanish current
        tenant.turn("I speak Spanish.", timestamp="2026-04-01T10:00:00Z")

        _migrate(own)
        tenant.turn("I moved to Porto.", timestamp="2026-05-01T10:00:00Z")
        tenant.turn("I'm a teacher now.", timestamp="2026-05-02T10:00:00Z")

        facts = {m["value"]: m for m in _facts(tenant) if m["key"] != "language"}
        assert {(m["key"], m["value"], m["active"]) for m in facts.values()} == {
            ("city", "Lisbon", False), ("city", "Porto", True), ("role", "nurse", False), ("role", "teacher", True)}
        # a key that holds several keeps each value current once, the copy said before in its history
        languages = sorted((m["valid_from"], m["value"], m["active"]) for m in _facts(tenant, "language"))
        assert [(value, active) for _, value, active in languages] == [("Spanish", False), ("French", True),
                                                                       ("Spanish", True)]
        assert _history(tenant, facts["Porto"]["id"]) == [("city", "Lisbon", False), ("city", "Porto", True)]
        found = tenant.search("Where does she live?")
        assert found[0]["value"] == "Porto" and "Lisbon" not in {r["value"] for r in found}


def test_a_turn_of_another_user_is_written_while_the_migration_holds_one_users_lock(ctx):
    """On a deploy the migration runs while the service writes: it holds a user's lock (and that user's
    rows) one user at a time, never anything a write of another user waits for."""
    with database_of_its_own(ctx, "memex_family_keys") as own, api_client(own) as client:
        tenant = Tenant(own, client)
        tenant.turn("I live in Lisbon.", timestamp="2026-03-01T10:00:00Z")
        filed_as(own, tenant, "city", "current_city")
        other = f"{tenant.user}-other"
        migrator = "memex-family-keys-test"
        failures: list[BaseException] = []

        def migrate() -> None:
            try:
                with psycopg.connect(own.db.dsn, autocommit=True, application_name=migrator) as conn:
                    family_keys.migrate(conn.cursor())
            except BaseException as exc:  # noqa: BLE001 - reported by the test's thread
                failures.append(exc)

        # A session holding the user's current_city row keeps the migration inside that user's
        # transaction, their lock taken, for as long as this test needs.
        with psycopg.connect(own.db.dsn) as holder:
            holder.execute("SELECT id FROM memories WHERE tenant_id = %s AND user_id = %s AND key = 'current_city' FOR UPDATE",
                           (tenant.id, tenant.user))
            migration = threading.Thread(target=migrate)
            migration.start()
            try:
                with psycopg.connect(own.db.dsn, autocommit=True) as watcher:
                    deadline = time.monotonic() + 30
                    # The migrator holding this user's own lock (any advisory lock of its session, such as
                    # the migrations' own, would not do) and waiting on the held row.
                    while not watcher.execute(
                            """SELECT 1 FROM pg_stat_activity WHERE pid = %s AND application_name = %s
                                 AND wait_event_type = 'Lock'""",
                            (users_lock_holder(watcher, tenant.id, tenant.user), migrator)).fetchone():
                        assert time.monotonic() < deadline, "the migration never took the user's lock"
                        time.sleep(0.05)

                    written: list = []
                    writer = threading.Thread(target=lambda: written.append(
                        tenant.turn("I work at Notion.", user=other, timestamp="2026-03-02T10:00:00Z")))
                    writer.start()
                    writer.join(timeout=60)
                    assert not writer.is_alive(), "another user's turn waited for the migration"
                    assert written[0].status_code == 201, written[0].text
                    assert [m["value"] for m in written[0].json()["memories"] if m["memory_type"] == "semantic"] == ["Notion"]
                    # ... while the migration still held the first user's lock
                    assert migration.is_alive()
            finally:
                holder.rollback()
                migration.join(timeout=60)
        assert not migration.is_alive() and not failures, failures
        assert {(m["key"], m["value"]) for m in _facts(tenant)} == {("city", "Lisbon")}


def test_a_migration_out_of_time_stops_unrecorded_and_the_next_run_continues_with_nothing_lost_or_doubled(ctx):
    """MigrateFunction gives the migrations its time less a margin (`until`): at 1M memories 0033 takes
    longer (bench.family_keys), so it stops between users and the next deploy does the rest."""
    with database_of_its_own(ctx, "memex_family_keys") as own, api_client(own) as client:
        tenant = Tenant(own, client)
        users = [f"{tenant.user}-{n}" for n in range(3)]
        for user in users:
            tenant.turn("I live in Berlin.", user=user, timestamp="2026-01-01T10:00:00Z")
            tenant.turn("I live in Lisbon.", user=user, timestamp="2026-03-01T10:00:00Z")
        filed_as(own, tenant, "city", "current_city", every_user=True)
        for user in users:
            tenant.turn("I moved to Porto.", user=user, timestamp="2026-05-01T10:00:00Z")
        with psycopg.connect(own.db.dsn, autocommit=True) as conn:
            conn.execute("DELETE FROM schema_migrations WHERE version = '0033_family_keys'")  # an install before it
            count = "SELECT count(*) FROM memories WHERE tenant_id = %s"
            memories = conn.execute(count, (tenant.id,)).fetchone()[0]

            try:
                apply_migrations(conn, own.embedder.dim, until=time.monotonic())  # out of time at once
                raise AssertionError("the migration ran to its end out of time")
            except MigrationUnfinished as unfinished:
                assert "0033_family_keys" in str(unfinished)
            assert not conn.execute("SELECT 1 FROM schema_migrations WHERE version = '0033_family_keys'").fetchall()
            aliased = "SELECT DISTINCT user_id FROM memories WHERE tenant_id = %s AND key = 'current_city'"
            assert len(conn.execute(aliased, (tenant.id,)).fetchall()) == 2  # one user done, committed

            assert apply_migrations(conn, own.embedder.dim) == ["0033_family_keys"]
            assert not conn.execute(aliased, (tenant.id,)).fetchall()
            assert conn.execute(count, (tenant.id,)).fetchone()[0] == memories
            links = conn.execute(
                """SELECT n.user_id, n.value, o.value FROM memory_links l
                   JOIN memories n ON n.tenant_id = l.tenant_id AND n.id = l.memory_id
                   JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id
                   WHERE l.tenant_id = %s ORDER BY 1, 2""", (tenant.id,)).fetchall()
        assert links == [(user, new, old) for user in users for new, old in (("Lisbon", "Berlin"), ("Porto", "Lisbon"))]
        for user in users:
            facts = client.get(f"/v1/users/{user}/memories", headers=tenant.headers,
                               params={"include_inactive": "true"}).json()["memories"]
            assert sorted((m["key"], m["value"], m["active"]) for m in facts if m["memory_type"] == "semantic") == [
                ("city", "Berlin", False), ("city", "Lisbon", False), ("city", "Porto", True)]


def test_the_rekey_never_meets_a_user_being_erased_as_the_mark_comes_after_it(ctx):
    """0033 rewrites users' facts, and nothing may be written for a user being erased (db/erasing.py). It
    cannot meet one: the mark's table (0034) is created only once 0033 has finished, however many runs it
    takes (a run out of time records it not, and the later migrations wait), and a request's erasure
    cannot begin without that table. An install before 0033, two users' cities under the alias."""
    from tests.conftest import scratch_database

    with scratch_database(ctx, "memex_rekey_mark") as url, psycopg.connect(url, autocommit=True) as conn:
        apply_migrations(conn, ctx.embedder.dim, through="0032_analyze_sooner")
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content, embedding,
                                              valid_from)
                        SELECT 't', 'm' || i, 'u' || i, 'semantic', 'fact', 'current_city', 'Lisbon',
                               'The user lives in Lisbon.', array_fill(0.1::real, ARRAY[%s])::vector, now()
                        FROM generate_series(1, 2) i""", (ctx.embedder.dim,))
        try:
            apply_migrations(conn, ctx.embedder.dim, until=time.monotonic())  # one user re-keyed, then out of time
            raise AssertionError("the migration ran to its end out of time")
        except MigrationUnfinished as unfinished:
            assert "0033_family_keys" in str(unfinished)
        mark = "SELECT to_regclass('user_erasures') IS NOT NULL"
        assert conn.execute("SELECT count(*) FROM memories WHERE key = 'current_city'").fetchone()[0] == 1
        assert conn.execute(mark).fetchone()[0] is False
        assert apply_migrations(conn, ctx.embedder.dim)[:2] == ["0033_family_keys", "0034_user_erasures"]
        assert conn.execute(mark).fetchone()[0] is True


def test_a_key_is_filed_as_the_llm_extractor_files_it_and_a_family_key_as_itself():
    assert aliases.family_key("user", "current_city") == "city"
    # a favourite's last word as the offline rules read an "-ie" noun's plural before they knew them (rekey)
    assert aliases.family_key("user", "favorite_movy") == "favorite_movie"
    assert aliases.family_key("user", "favourite_sci_fi_movy") == "favorite_sci_fi_movie"
    assert aliases.family_key("user", "favorite_budgy") == "favorite_budgie"
    assert aliases.family_key("user", "my_favorite_cooky") == "favorite_cookie"
    assert aliases.family_key("user", "sister_favorite_movy") == "sister_favorite_movie"
    assert aliases.family_key("Melanie", "melanie_favorite_movy") == "melanie_favorite_movie"
    for key in ("favorite_city", "favorite_pony", "favorite_movy_night", "favorite_kind_of_movie", "favorite_movie"):
        assert aliases.family_key("user", key) == key
    # and as they read a plural of the nouns plurals.py names since unicase: "lenses" as "lense", "quizzes" as
    # "quizz" (unicase2)
    for old, new in (("lense", "lens"), ("buse", "bus"), ("statuse", "status"), ("quizz", "quiz"), ("waltze", "waltz"),
                     ("stomachs", "stomach"), ("wive", "wife")):
        assert aliases.family_key("user", f"favorite_{old}") == f"favorite_{new}"
        assert aliases.family_key("user", f"favorite_{new}") == f"favorite_{new}"
    for key in ("favorite_bronze", "favorite_prize", "favorite_house", "favorite_buzz", "favorite_dish"):
        assert aliases.family_key("user", key) == key
    assert aliases.family_key("user", "wife_location") == "partner_city"
    assert aliases.family_key("Melanie", "melanie_job") == "melanie_role"
    assert aliases.family_key("user", "melanie_job") == "melanie_job"  # no participant's fact: kept
    for key in ("city", "partner_city", "melanie_role", "pet_dog_name", "favorite_food", "likes"):
        assert aliases.family_key("Melanie" if key.startswith("melanie") else "user", key) == key


@pytest.mark.parametrize("said, key, alias", [
    ("I live in Lisbon.", "city", "current_city"),
    # the y word of an "-ie" noun, as the offline rules read it before they knew them (migration 0049's rekey)
    ("My favourite movies are Alien and Heat.", "favorite_movie", "favorite_movy"),
    # a plural of a noun in one "s", as they read it before unicase named them (migration 0050's)
    ("My favourite lenses are the 50mm and the 85mm.", "favorite_lens", "favorite_lense"),
])
def test_a_value_erased_under_an_alias_is_not_brought_back_by_a_reextraction_under_the_family_key(
        ctx, tenant, runtime, said, key, alias):
    """Erased while the fact was filed under the alias, its tombstone names the alias, and the turn is extracted
    again under the family's key: the same family (pipeline._by_family), so the user's erasure is final, before the
    migration that files the alias under the family's key or after."""
    tenant.turn(said, timestamp="2026-03-01T10:00:00Z")
    tenant.turn("I work at Notion.", timestamp="2026-03-02T10:00:00Z")
    filed_as(ctx, tenant, key, alias)
    erased = _facts(tenant, alias)[0]
    assert tenant.delete(f"/v1/memories/{erased['id']}").json()["deleted"] == {"memories": 1}

    job = backfill.new_job("reextract", tenant.id)
    ctx.publisher.publish_backfill(job)
    runtime.drain()
    assert tenant.get(f"/v1/backfills/{job.backfill_id}").json()["status"] == "done"

    assert {(m["key"], m["value"]) for m in _facts(tenant)} == {("employer", "Notion")}


def test_a_candidate_an_old_worker_stored_under_an_alias_after_the_upgrade_is_decided_under_its_family_key(ctx, tenant):
    tenant.turn("I live in Lisbon.", timestamp="2026-03-01T10:00:00Z")
    pending = tenant.turn("Hello!", timestamp="2026-05-01T10:00:00Z").json()["turn_id"]
    with ctx.db.transaction() as conn:  # as a worker still on the code before the aliases stores it mid-deploy
        conn.execute("""UPDATE turns SET status = 'processing', resolved_at = NULL, candidates = '[{"type": "fact",
                          "key": "current_city", "value": "Porto", "content": "The user lives in Porto.",
                          "confidence": 0.9, "importance": 0.7, "source_message_id": null}]'
                        WHERE tenant_id = %s AND id = %s""", (tenant.id, pending))

    pipeline.resolve(ctx, SupersessionJob(tenant.id, tenant.user, pending))

    assert {(m["key"], m["value"], m["active"]) for m in _facts(tenant)} == {("city", "Lisbon", False),
                                                                              ("city", "Porto", True)}
    porto = next(m for m in _facts(tenant) if m["value"] == "Porto")
    assert _history(tenant, porto["id"]) == [("city", "Lisbon", False), ("city", "Porto", True)]


def _favourites(tenant) -> list[tuple[str, str, bool]]:
    return sorted((m["key"], m["value"], m["active"]) for m in _facts(tenant) if m["key"].startswith("favorite"))


@pytest.mark.parametrize("kind, key, old", [
    # before the offline rules knew the "-ie" nouns, "movies" was read as "movy": migration 0049
    ("movies", "favorite_movie", "favorite_movy"),
    # before they knew the nouns in one "s" that take "es" (unicase), "lenses" was read as "lense": migration 0050
    ("lenses", "favorite_lens", "favorite_lense"),
])
def test_a_favourite_stored_under_the_word_its_plural_was_read_as_is_replaced_by_one_said_after_the_upgrade(
        ctx, kind, key, old):
    """Stored as the offline rules read its plural then ("My favourite movies are ..." as favorite_movy), filed as
    they read it now by the migration: the favourites said since replace it, its history kept."""
    with database_of_its_own(ctx, "memex_family_keys") as own, api_client(own) as client:
        tenant = Tenant(own, client)
        tenant.turn(f"My favourite {kind} are Alien and Heat.", timestamp="2026-03-01T10:00:00Z")
        filed_as(own, tenant, key, old)

        _migrate(own)
        tenant.turn(f"My favourite {kind} are Up and Jaws.", timestamp="2026-05-01T10:00:00Z")

        assert _favourites(tenant) == [(key, "Alien and Heat", False), (key, "Up and Jaws", True)]
        now = next(m for m in _facts(tenant) if m["active"])
        assert _history(tenant, now["id"]) == [(key, "Alien and Heat", False), (key, "Up and Jaws", True)]
