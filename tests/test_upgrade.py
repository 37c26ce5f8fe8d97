"""An installation upgraded over its data: a database written at migration 0013 (the schema of
2026-12-01), with a user's history of supersessions, an erased fact and an API key, migrates to head
and answers through the API as it did: every row kept, the old key accepted, the history and what is
current unchanged, and the features added since (the sessions listing of 0025, a memory deleted out
of a chain, a fact filed under a model's own word for its key replaced by the family's next value:
0033) working on the old rows."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import psycopg

from memex.db.migrations import apply_migrations
from memex_edge.context import build_context
from tests.conftest import api_client, scratch_database

MIGRATIONS = Path(__file__).resolve().parents[1] / "shared" / "memex" / "db" / "migrations"
OLD = "0013_speaker_names"
KEY = "mx_written-at-0013-" + "k" * 24
DATABASE = "memex_upgrade_from_0013"


def _migrate_through(conn: psycopg.Connection, last: str) -> None:
    """The schema as the migrator of that time left it: its bookkeeping tables (the same as today's),
    each file up to `last` in a transaction of its own (none before 0014 runs concurrently)."""
    conn.execute("CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
    conn.execute("CREATE TABLE schema_settings (name text PRIMARY KEY, value text NOT NULL)")
    conn.execute("INSERT INTO schema_settings (name, value) VALUES ('embedding_dim', '384')")
    for path in sorted(MIGRATIONS.glob("*.sql")):
        if path.stem > last:
            break
        with conn.transaction():
            conn.execute(path.read_text(encoding="utf-8").replace("{embedding_dim}", "384"))
            conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (path.stem,))


# What alice and bob said (turn id, session, day of 2026, text) and what memex at 0013 kept of it:
# (memory id, turn, key, value, content, valid_to); the chains employer Stripe -> Notion and city
# Lisbon -> Porto; her allergy was erased (its memory gone, its turn and key tombstoned).
TURNS = [("t1", "alice", "s1", "09-01", "I work at Stripe. My dog is called Biscuit."),
         ("t2", "alice", "s1", "09-02", "I live in Lisbon."),
         ("t3", "alice", "s2", "10-01", "I just started at Notion, left Stripe."),
         ("t4", "alice", "s2", "10-05", "We moved to Porto last week."),
         ("t5", "alice", "s3", "10-10", "I am allergic to peanuts."),
         ("t6", "bob", "s1", "09-03", "I work at Google."),
         ("t7", "bob", "s1", "09-04", "I live in Berlin.")]
FACTS = [("stripe", "t1", "employer", "Stripe", "The user's employer is Stripe.", "10-01"),
         ("biscuit", "t1", "pet_dog_name", "Biscuit", "The user's dog is named Biscuit.", None),
         ("lisbon", "t2", "city", "Lisbon", "The user lives in Lisbon.", "10-05"),
         ("notion", "t3", "employer", "Notion", "The user's employer is Notion.", None),
         ("porto", "t4", "city", "Porto", "The user lives in Porto.", None),
         ("google", "t6", "employer", "Google", "The user's employer is Google.", None),
         # filed by an LLM of the time under its own word for the key (migration 0033 files it as `city`)
         ("berlin", "t7", "current_city", "Berlin", "The user lives in Berlin.", None)]
LINKS = [("notion", "stripe"), ("porto", "lisbon")]


def _write_at_0013(conn: psycopg.Connection, embed) -> None:
    conn.execute("INSERT INTO tenants (id) VALUES ('acme')")
    conn.execute("INSERT INTO api_keys (key_hash, tenant_id, prefix) VALUES (%s, 'acme', %s)",
                 (hashlib.sha256(KEY.encode()).hexdigest(), KEY[:8]))
    users = {turn: user for turn, user, *_ in TURNS}
    sessions = {turn: session for turn, _, session, *_ in TURNS}
    texts = [text for *_, text in TURNS] + [fact[4] for fact in FACTS]
    vectors = dict(zip(texts, embed(texts)))
    for turn, user, session, day, text in TURNS:
        when = f"2026-{day}T10:00:00Z"
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status, extracted_at,
                                           resolved_at)
                        VALUES ('acme', %s, %s, %s, %s, 'processed', %s, %s)""", (turn, user, session, when, when, when))
        conn.execute("""INSERT INTO messages (tenant_id, id, turn_id, position, role, content)
                        VALUES ('acme', %s, %s, 0, 'user', %s)""", (f"{turn}-m", turn, text))
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, session_id, memory_type, type, content, importance,
                                              embedding, valid_from, source_turn_id, source_message_id, dedupe_key,
                                              metadata)
                        VALUES ('acme', %s, %s, %s, 'episodic', 'message', %s, 0.3, %s, %s, %s, %s, %s, '{"role": "user"}')""",
                     (f"{turn}-e", user, session, text, vectors[text], when, turn, f"{turn}-m", f"message:{turn}-m"))
    for id_, turn, key, value, content, ended in FACTS:
        said = next(f"2026-{day}T10:00:00Z" for t, _, _, day, _ in TURNS if t == turn)
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, session_id, memory_type, type, key, value, content,
                                              importance, confidence, embedding, active, valid_from, valid_to,
                                              source_turn_id, source_message_id, dedupe_key, metadata)
                        VALUES ('acme', %s, %s, %s, 'semantic', 'fact', %s, %s, %s, 0.8, 0.8, %s, %s, %s, %s, %s, %s, %s,
                                '{"judge": "rules", "subject": "user"}')""",
                     (id_, users[turn], sessions[turn], key, value, content, vectors[content], ended is None, said,
                      ended and f"2026-{ended}T10:00:00Z", turn, f"{turn}-m", f"candidate:{turn}:{key}:{value.lower()}"))
    for newer, older in LINKS:
        conn.execute("INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES ('acme', %s, %s)", (newer, older))
    conn.execute("INSERT INTO tombstones (tenant_id, turn_id, key) VALUES ('acme', 't5', 'allergy')")


ROWS = {"memories": "SELECT id, user_id, key, value, content, active, valid_from, valid_to FROM memories ORDER BY id",
        "memory_links": "SELECT memory_id, replaced_id FROM memory_links ORDER BY 1, 2",
        "tombstones": "SELECT turn_id, key FROM tombstones",
        "turns": "SELECT id, user_id, session_id, occurred_at, status FROM turns ORDER BY id",
        "messages": "SELECT id, turn_id, content FROM messages ORDER BY id",
        "api_keys": "SELECT key_hash, tenant_id, revoked_at FROM api_keys"}


@contextmanager
def _database_at(ctx, last: str) -> Iterator[tuple[psycopg.Connection, str]]:
    """A database of its own migrated up to `last`, dropped afterwards."""
    from pgvector.psycopg import register_vector

    with scratch_database(ctx, DATABASE) as url, psycopg.connect(url, autocommit=True) as conn:
        _migrate_through(conn, last)
        register_vector(conn)
        yield conn, url


def _start(monkeypatch, home: Path, url: str) -> list[str]:
    """What `make dev` says as it starts on the database at `url` (its own Postgres, migrated)."""
    from infra.local.runtime import LocalRuntime

    monkeypatch.setenv("DATABASE_URL", url)
    runtime = LocalRuntime(home)
    runtime.start_database()
    return runtime.notes


def _history(client, headers, memory_id: str) -> list[tuple[str, bool]]:
    response = client.get(f"/v1/memories/{memory_id}/history", headers=headers)
    assert response.status_code == 200, response.text
    return [(m["content"], m["active"]) for m in response.json()["history"]]


def test_a_database_at_0013_with_a_history_migrates_to_head_and_answers_the_same(ctx, monkeypatch, tmp_path):
    with _database_at(ctx, OLD) as (conn, url):
        _write_at_0013(conn, ctx.embedder.embed)
        before = {table: conn.execute(sql).fetchall() for table, sql in ROWS.items()}

        notes = _start(monkeypatch, tmp_path, url)

        later = sorted(p.stem for p in MIGRATIONS.glob("*.sql") if p.stem > OLD)
        assert [n for n in notes if re.fullmatch(rf"migrations applied: {', '.join(later)} \(in \d+\.\d s\)", n)], notes
        assert not [n for n in notes if "does not know" in n]
        # every row as it was, but the fact filed under a model's word for its key, filed under the family's (0033)
        assert {table: conn.execute(sql).fetchall() for table, sql in ROWS.items()} == {
            **before, "memories": [(*row[:2], "city", *row[3:]) if row[0] == "berlin" else row
                                   for row in before["memories"]]}
        upgraded = build_context(dataclasses.replace(ctx.settings, database_url=url))
        headers = {"Authorization": f"Bearer {KEY}"}
        with api_client(upgraded) as client:
            def post(path: str, body: dict) -> dict:
                response = client.post(path, json=body, headers=headers)
                assert response.status_code in (200, 201), response.text
                return response.json()

            # the key made before the upgrade still opens the tenant; another does not
            assert client.get("/v1/memories/count", params={"user_id": "alice"},
                              headers={"Authorization": "Bearer mx_nobody"}).status_code == 401
            listed = client.get("/v1/users/alice/memories", params={"include_inactive": "true"}, headers=headers)
            assert listed.status_code == 200, listed.text
            assert {(m["id"], m["active"]) for m in listed.json()["memories"]} == {
                (id_, valid_to is None) for id_, user, *_, valid_to in before["memories"] if user == "alice"}
            assert _history(client, headers, "notion") == [("The user's employer is Stripe.", False),
                                                           ("The user's employer is Notion.", True)]
            assert _history(client, headers, "porto") == [("The user lives in Lisbon.", False),
                                                          ("The user lives in Porto.", True)]

            # what is current is still current, what was replaced is still history
            found = post("/v1/search", {"user_id": "alice", "query": "Where does the user work?"})["results"]
            assert found[0]["content"] == "The user's employer is Notion."
            assert all(r["active"] for r in found) and "stripe" not in {r["id"] for r in found}
            everything = post("/v1/search", {"user_id": "alice", "query": "Where does the user work?",
                                             "include_inactive": True})["results"]
            assert {"stripe": False, "notion": True}.items() <= {r["id"]: r["active"] for r in everything}.items()
            context = post("/v1/recall", {"user_id": "alice", "query": "Where does the user live?"})["context"]
            assert "The user lives in Porto." in context and "The user lives in Lisbon." not in context
            assert "Google" not in context  # bob's

            # the sessions listing (0025) counts the turns written before it, per user
            sessions = client.get("/v1/users/alice/sessions", headers=headers).json()["sessions"]
            assert [(s["session_id"], s["turns"], s["messages"]) for s in sessions] == [("s3", 1, 1), ("s2", 2, 2),
                                                                                        ("s1", 2, 2)]
            bobs = client.get("/v1/users/bob/sessions", headers=headers).json()["sessions"]
            assert [(s["session_id"], s["turns"]) for s in bobs] == [("s1", 2)]

            # bob's move replaces the city stored under current_city, which stays in its history
            post("/v1/turns?wait=true", {"user_id": "bob", "session_id": "s2", "timestamp": "2026-11-02T10:00:00Z",
                                         "messages": [{"role": "user", "content": "We moved to Munich last week."}]})
            lives = post("/v1/search", {"user_id": "bob", "query": "Where does he live?"})["results"]
            assert lives[0]["content"] == "The user lives in Munich." and "berlin" not in {r["id"] for r in lives}
            assert _history(client, headers, lives[0]["id"]) == [("The user lives in Berlin.", False),
                                                                 ("The user lives in Munich.", True)]

            # a new fact supersedes an old-written one; deleting the middle of the chain erases it and its past
            # (Stripe), never what replaced it (Figma, current, its chain closed over the gap)
            post("/v1/turns?wait=true", {"user_id": "alice", "session_id": "s4", "timestamp": "2026-11-01T10:00:00Z",
                                         "messages": [{"role": "user", "content": "I just started at Figma, left Notion."}]})
            current = post("/v1/search", {"user_id": "alice", "query": "Where does the user work?"})["results"][0]
            assert current["content"] == "The user's employer is Figma." and current["active"]
            assert _history(client, headers, current["id"]) == [("The user's employer is Stripe.", False),
                                                                ("The user's employer is Notion.", False),
                                                                ("The user's employer is Figma.", True)]
            erased = client.delete("/v1/memories/notion", headers=headers)
            assert erased.json() == {"deleted": {"memories": 2}}
            assert client.get("/v1/memories/stripe", headers=headers).status_code == 404
            assert _history(client, headers, current["id"]) == [("The user's employer is Figma.", True)]
        assert conn.execute("SELECT count(*) FROM tombstones WHERE turn_id = 't5'").fetchone()[0] == 1
        upgraded.db.reset()


def test_a_start_on_a_database_a_newer_memex_migrated_names_what_it_does_not_know(ctx, monkeypatch, tmp_path):
    """Rolled back over data a newer version migrated: the start names the migrations it does not know
    (the versions before this one said nothing) and applies none again."""
    with _database_at(ctx, OLD) as (conn, url):
        apply_migrations(conn, 384)
        conn.execute("INSERT INTO schema_migrations (version) VALUES ('9000_from_a_newer_memex')")

        notes = _start(monkeypatch, tmp_path, url)

        assert [n for n in notes if "migrations" in n] == [
            "the database has migrations this version of memex does not know (9000_from_a_newer_memex): a newer "
            "version applied them; this one serves it as it is, without what they added"]
        assert apply_migrations(conn, 384) == []


def test_a_database_at_0048_with_favourites_to_file_again_migrates_to_head(ctx):
    """The re-keying migrations run the code of today (db/family_keys.py) against the schema of their own
    number: upgraded from 0048, 0049 ends a favourite filed under its noun again with the next one said, though
    no column a later migration adds (0055's `holds_from`) exists yet when it runs."""
    from tests.test_migrations import _favourites_stored_before

    from pgvector.psycopg import register_vector

    with scratch_database(ctx, "memex_upgrade_from_0048") as url, psycopg.connect(url, autocommit=True) as conn:
        apply_migrations(conn, 384, through="0048_keys_in_order")
        register_vector(conn)
        _favourites_stored_before(conn, "0049_favourite_ie_nouns", [
            ("old", "u", "favorite_movy", "Alien", 1), ("new", "u", "favorite_movie", "Up", 2)],
            {"type": "preference", "key": "favorite_cooky", "value": "macarons"})

        applied = apply_migrations(conn, 384)

        assert applied == sorted(p.stem for p in MIGRATIONS.glob("*.sql") if p.stem > "0048_keys_in_order")
        assert conn.execute("SELECT id, key, active, valid_to FROM memories ORDER BY id").fetchall() == [
            ("new", "favorite_movie", True, None),
            ("old", "favorite_movie", False, conn.execute("SELECT valid_from FROM memories WHERE id = 'new'").fetchone()[0])]
