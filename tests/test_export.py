"""A user's data out: their turns as sent (GET /v1/users/{id}/turns), and `memex export`, whose lines
`memex backfill` imports into another user with the same memories."""

from __future__ import annotations

import json
import os

from bench.service import RUNTIME_VARS
from memex import export
from memex.db.cursors import OTHER_LISTING
from tests.conftest import import_lines, memex_cli


def sent(tenant, session: str, timestamp: str | None, *contents: str, user: str | None = None, **extra) -> str:
    response = tenant.turn(*contents, session=session, user=user,
                           **({"timestamp": timestamp} if timestamp else {}), **extra)
    assert response.status_code == 201, response.text
    return response.json()["turn_id"]


def listed(tenant, user: str | None = None, **params) -> list[dict]:
    """Every turn of the listing, a page at a time."""
    turns, cursor = [], None
    while True:
        page = tenant.get(f"/v1/users/{user or tenant.user}/turns",
                          params={**params, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.text
        turns += page.json()["turns"]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            return turns


def test_a_users_turns_are_listed_as_they_were_sent_the_earliest_said_first(tenant):
    first = sent(tenant, "s1", "2026-03-01T10:00:00+02:00", agent_id="helper", metadata={"channel": "web"},
                 messages=[{"role": "user", "content": "I live in Porto.", "metadata": {"id": "m-1"}},
                           {"role": "assistant", "content": "Noted.", "name": "helper"}])
    same_time = sent(tenant, "s2", "2026-03-01T08:00:00Z", "I have a dog.")  # the same instant, received later
    earlier = sent(tenant, "s2", "2026-02-01T08:00:00", "I work at Stripe.")  # said earlier, sent last
    sent(tenant, "s1", "2026-01-01T08:00:00Z", "Another user's.", user=f"{tenant.user}-x")

    page = tenant.get(f"/v1/users/{tenant.user}/turns")
    assert page.status_code == 200, page.text
    body = page.json()
    assert (body["user_id"], body["next_cursor"]) == (tenant.user, None)
    assert [t["turn_id"] for t in body["turns"]] == [earlier, first, same_time]
    turn = body["turns"][1]
    assert turn["received_at"].endswith("Z") and turn["messages"][0]["id"]
    assert {k: v for k, v in turn.items() if k not in ("received_at", "messages")} == {
        "turn_id": first, "session_id": "s1", "agent_id": "helper", "occurred_at": "2026-03-01T08:00:00Z",
        "utc_offset": 120, "status": "processed", "metadata": {"channel": "web"}, "idempotency_key": None,
        "user_name": None}
    assert [{k: v for k, v in m.items() if k != "id"} for m in turn["messages"]] == [
        {"role": "user", "name": None, "content": "I live in Porto.", "metadata": {"id": "m-1"}},
        {"role": "assistant", "name": "helper", "content": "Noted.", "metadata": {}}]
    assert body["turns"][0]["utc_offset"] is None  # sent without an offset


def test_the_turns_listing_pages_filters_and_keeps_to_its_tenant(tenant, other_tenant):
    for day in range(1, 6):
        sent(tenant, f"s{day % 2}", f"2026-03-0{day}T10:00:00Z", f"Day {day}.",
             **({"agent_id": "helper"} if day > 3 else {}))
    said = lambda turns: [t["messages"][0]["content"] for t in turns]  # noqa: E731
    assert said(listed(tenant, limit=2)) == [f"Day {day}." for day in range(1, 6)]
    assert said(listed(tenant, limit=1, session_id="s1")) == ["Day 1.", "Day 3.", "Day 5."]
    assert said(listed(tenant, limit=1, agent_id="helper")) == ["Day 4.", "Day 5."]

    # A cursor continues only its own listing: another filter's, another user's.
    cursor = tenant.get(f"/v1/users/{tenant.user}/turns", params={"limit": 1}).json()["next_cursor"]
    for path, params in [(f"/v1/users/{tenant.user}/turns", {"session_id": "s1"}),
                         (f"/v1/users/{tenant.user}/turns", {"agent_id": "helper"}),
                         (f"/v1/users/{tenant.user}/sessions", {}), ("/v1/users/bob/turns", {})]:
        refused = tenant.get(path, params={**params, "cursor": cursor})
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["message"] == OTHER_LISTING

    assert other_tenant.get(f"/v1/users/{tenant.user}/turns").json() == {
        "user_id": tenant.user, "turns": [], "next_cursor": None}


def test_a_turns_user_name_is_given_back_as_its_messages_speakers_say_it(tenant):
    """`user_name` is kept only in the subjects of its messages: given back, it says them as they were."""
    sent(tenant, "s1", "2026-03-01T10:00:00Z", user_name="Caroline",
         messages=[{"role": "user", "name": "Caroline", "content": "I live in Porto."},
                   {"role": "user", "name": "Melanie", "content": "I live in Oslo."}])
    sent(tenant, "s1", "2026-03-02T10:00:00Z", user_name="Caroline",
         messages=[{"role": "user", "name": "Melanie", "content": "I have a cat."}])
    sent(tenant, "s1", "2026-03-03T10:00:00Z", user_name="Caroline",
         messages=[{"role": "user", "content": "I have a dog."}])
    assert [t["user_name"] for t in listed(tenant)] == ["Caroline", "user", None]


def _memories(tenant, user: str) -> list[tuple]:
    """The user's memories, current and past, as what they say and how they are chained: ids differ."""
    page = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500}).json()
    by_id = {m["id"]: m for m in page["memories"]}
    said = lambda m: (m["key"], m["value"], m["content"])  # noqa: E731
    return sorted(((*said(m), m["memory_type"], m["active"], m["valid_from"], m["valid_to"],
                    said(by_id[m["supersedes"]]) if m["supersedes"] else None,
                    tuple(sorted(s["session_id"] for s in m["sources"]))) for m in page["memories"]), key=repr)


def test_an_export_imported_as_another_user_gives_them_the_same_memories(ctx, tenant, tmp_path):
    first = sent(tenant, "s1", "2026-01-05T09:00:00+01:00", "I live in Porto.", "I work at Stripe.",
                 agent_id="helper", metadata={"channel": "web"})
    sent(tenant, "s1", "2026-01-05T09:00:00+01:00", "My dog is called Rex.")  # the same time, received later
    sent(tenant, "s2", "2026-02-10T18:30:00", "I moved to Lisbon. I now work at Notion.")
    sent(tenant, "s2", "2026-02-11T10:00:00Z", user_name="Caroline",
         messages=[{"role": "user", "name": "Caroline", "content": "I love sushi."},
                   {"role": "user", "name": "Melanie", "content": "I live in Oslo."}])
    sent(tenant, "s3", None, "I play the cello.")
    before = _memories(tenant, tenant.user)
    assert ("city", "Lisbon") in {m[:2] for m in before if m[4]} and any(not m[4] for m in before)

    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    out = tmp_path / "export.jsonl"
    other = f"{tenant.user}-b"
    done = memex_cli("export", "--tenant", tenant.id, "--user", tenant.user, "--as-user", other, "--out", str(out),
                     env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and f"memex export: 5 turns of user {tenant.user}" in done.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"user_id": other, "session_id": "s1", "agent_id": "helper",
                        "timestamp": "2026-01-05T09:00:00+01:00",
                        "messages": [{"role": "user", "content": "I live in Porto."},
                                     {"role": "user", "content": "I work at Stripe."}],
                        "metadata": {"channel": "web"}, "turn_id": first}
    assert lines[2]["timestamp"] == "2026-02-10T18:30:00-00:00"

    imported = memex_cli("backfill", str(out), "--tenant", tenant.id, "--progress", "0", env=env)
    assert imported.returncode == 0, imported.stderr
    assert (json.loads(imported.stdout)["done"], json.loads(imported.stdout)["failed"]) == (5, 0)
    assert _memories(tenant, other) == before
    # Their turns are the same conversation: exported, the same lines but for the keys the import gave
    # the turns sent without one, the turns' own ids (another user's turn is not theirs) and what each keeps of
    # the turn it came from (a digest, salted with its new user: no id of the first user's).
    again = [json.loads(line) for line in memex_cli("export", "--tenant", tenant.id, "--user", other, env=env).stdout
             .splitlines()]
    ours = lambda line: {k: v for k, v in line.items()  # noqa: E731
                         if k not in ("idempotency_key", "turn_id", "imported_from_digests")}
    assert [ours(line) for line in again] == [ours(line) for line in lines]
    assert all(len(line["imported_from_digests"]) == 1 and line["turn_id"] not in {
        line["turn_id"] for line in lines} for line in again)


def _same_user_turns(tenant) -> dict[str, str]:
    """A user's turns as docs/backfills.md's account of an import into the same user has them, by
    name: keyed turns whose line the export must say otherwise than they were sent (a timestamp for one
    sent without, which memex does not record; a user_name given back as "user", the name it was sent
    under being kept nowhere; a message gone with an erased fact), one said as sent, and keyless ones."""
    turns = {
        "as sent": sent(tenant, "s1", "2025-03-01T10:00:00+01:00", idempotency_key="k-as-sent", user_name="Caroline",
                        messages=[{"role": "user", "name": "Caroline", "content": "I have a cat."},
                                  {"role": "user", "name": "Melanie", "content": "I have a dog."}]),
        "renamed": sent(tenant, "s1", "2025-03-02T10:00:00Z", idempotency_key="k-renamed", user_name="Caroline",
                        messages=[{"role": "user", "content": "I play chess."},
                                  {"role": "user", "name": "Mel", "content": "Hi."}]),
        "keyless": sent(tenant, "s1", "2025-03-03T10:00:00Z", "I play the cello."),
        "untimed": sent(tenant, "s1", None, "I play the drums.", idempotency_key="k-untimed"),
        "erased": sent(tenant, "s2", "2025-03-04T10:00:00Z", "I live in Porto.", "I love jazz.",
                       idempotency_key="k-erased"),
        "lost": sent(tenant, "s2", "2025-03-05T10:00:00Z", "I work at Stripe."),
    }
    porto = [m for m in tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
             if (m["key"], m["value"]) == ("city", "Porto")]
    assert len(porto) == 1 and tenant.delete(f"/v1/memories/{porto[0]['id']}").status_code == 200
    return turns


def _said_once(tenant) -> list[list[str]]:
    return [[m["content"] for m in t["messages"]] for t in listed(tenant)]


def test_an_export_imported_into_the_same_user_stores_only_the_turns_it_lost(ctx, tenant, runtime, tmp_path):
    """A restore: the export's lines name the turns they were exported from, so the import into the same
    user finds every turn still there already stored, keyed or not and however its line says it (each was
    counted failed with "its idempotency_key names another turn", or stored a second time), stores the one
    that was lost, and brings back no erased fact; imported again, it finds them all."""
    from memex import backfill

    turns = _same_user_turns(tenant)
    lines = [json.loads(line) for line in export.lines(ctx, tenant.id, tenant.user)]
    assert [line["turn_id"] for line in lines] == [turns[name] for name in
                                                   ("as sent", "renamed", "keyless", "erased", "lost", "untimed")]
    assert lines[3]["messages"] == [{"role": "user", "content": "I love jazz."}]  # Porto's message left out
    before = _said_once(tenant)
    with ctx.db.transaction() as conn:  # a partial loss
        conn.execute("DELETE FROM turns WHERE tenant_id = %s AND id = %s", (tenant.id, turns["lost"]))
    assert ("employer", "Stripe") not in _facts(tenant, tenant.user)
    memories = len(_memories(tenant, tenant.user))

    path = tmp_path / "same-user.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    for already_stored in (5, 6):  # the restore, and the same file again
        job = backfill.new_job("import", tenant.id, path=str(path))
        ctx.publisher.publish_backfill(job)
        runtime.drain(timeout=300)
        status = backfill.status(ctx, tenant.id, job.backfill_id)
        assert (status["done"], status["already_stored"], status["failed"], status["failures"]) == (
            6, already_stored, 0, [])
        assert _said_once(tenant) == before
        facts = _facts(tenant, tenant.user)
        assert ("employer", "Stripe") in facts and ("city", "Porto") not in facts
        assert len(_memories(tenant, tenant.user)) == memories + 2  # the lost turn's fact and episode, once


def test_an_export_written_before_turn_ids_imports_into_the_same_user_as_it_did(ctx, tenant, runtime, tmp_path):
    """A file of an earlier version names no turn: a keyed turn whose line says it as it was sent is found
    stored; one whose line the export had to say otherwise hashes otherwise, and is counted failed with the
    key's reason, nothing stored twice; a keyless turn is stored again."""
    from memex import backfill

    _same_user_turns(tenant)
    lines = [{k: v for k, v in json.loads(line).items() if k != "turn_id"}
             for line in export.lines(ctx, tenant.id, tenant.user)]
    assert [line.get("user_name") for line in lines] == ["Caroline", "user", None, None, None, None]

    path = tmp_path / "same-user.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=300)
    status = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (status["done"], status["already_stored"], status["failed"]) == (3, 1, 3)
    assert [(f["line"], f["reason"]) for f in status["failures"]] == [
        (2, "not stored (its idempotency_key names another turn)"),
        (4, "not stored (its idempotency_key names another turn)"),
        (6, "not stored (its idempotency_key names another turn)")]
    assert [t["messages"][0]["content"] for t in listed(tenant)] == [
        "I have a cat.", "I play chess.", "I play the cello.", "I play the cello.", "I live in Porto.",
        "I work at Stripe.", "I work at Stripe.", "I play the drums."]


def test_a_session_erased_after_an_export_does_not_come_back_through_it(ctx, tenant, runtime, tmp_path):
    """Erasure is final, a restore too: the lines of an export written before a session's erasure name its
    turns, which the user's import counts `erased`, stores nothing of and draws no fact from (their
    tombstones went with them, and held back only turns received before the erasure: the restore stored
    them again and drew their facts). So does a turn that a restore stored from a line (under the id its line
    names, free again after its loss), its session erased since: the backup restored again finds it by that id.
    The same file again, each time the same. Another user's import of the lines stores them: the turns
    erased were not theirs."""
    from memex import backfill

    gone = [sent(tenant, "gone", "2025-03-01T10:00:00Z", "I work at Acme.", idempotency_key="k-acme"),
            sent(tenant, "gone", "2025-03-02T10:00:00Z", "I have a cat.")]
    sent(tenant, "kept", "2025-03-03T10:00:00Z", "I live in Lisbon.")
    lost = sent(tenant, "later", "2025-03-04T10:00:00Z", "I play the drums.")
    path = tmp_path / "backup.jsonl"
    path.write_text("".join(line + "\n" for line in export.lines(ctx, tenant.id, tenant.user)), encoding="utf-8")

    def restore(user: str | None = None) -> dict:
        if user:
            path.with_name("theirs.jsonl").write_text("".join(
                json.dumps({**json.loads(line), "user_id": user}) + "\n" for line in path.read_text().splitlines()))
        job = backfill.new_job("import", tenant.id, path=str(path.with_name("theirs.jsonl") if user else path))
        ctx.publisher.publish_backfill(job)
        runtime.drain(timeout=300)
        state = backfill.status(ctx, tenant.id, job.backfill_id)
        return {k: state[k] for k in ("status", "done", "already_stored", "erased", "failed", "remaining")}

    with ctx.db.transaction() as conn:  # a partial loss, restored: the drums under the id they had
        conn.execute("DELETE FROM turns WHERE tenant_id = %s AND id = %s", (tenant.id, lost))
    assert restore()["already_stored"] == 3
    assert [t["turn_id"] for t in listed(tenant) if t["session_id"] == "later"] == [lost]
    for session in ("gone", "later"):
        assert tenant.delete(f"/v1/sessions/{session}", params={"user_id": tenant.user}).status_code == 200
    assert _facts(tenant, tenant.user) == {("city", "Lisbon")}

    for _ in range(2):  # the restore, and the same file again
        assert restore() == {"status": "done", "done": 1, "already_stored": 1, "erased": 3, "failed": 0,
                             "remaining": 0}
        assert [(t["session_id"], t["messages"][0]["content"]) for t in listed(tenant)] == [
            ("kept", "I live in Lisbon.")]
        assert _facts(tenant, tenant.user) == {("city", "Lisbon")}
    with ctx.db.transaction() as conn:  # digests of ids and keys alone: nothing the erased turns said
        rows = conn.execute("SELECT * FROM erased_turn_digests WHERE tenant_id = %s", (tenant.id,)).fetchall()
        digests = [r["d"] for r in conn.execute(
            "SELECT erased_digest(%s, %s, id) AS d FROM unnest(%s::text[]) AS id", (tenant.id, tenant.user, [*gone, lost]))]
    assert set(rows[0]) == {"tenant_id", "turn_digest", "key_digest"}
    assert sorted(r["turn_digest"] for r in rows) == sorted(digests)
    assert not {*gone, lost, tenant.user, "k-acme"} & {v for r in rows for v in r.values()}

    other = f"{tenant.user}-other"
    assert restore(other) == {"status": "done", "done": 4, "already_stored": 0, "erased": 0, "failed": 0,
                              "remaining": 0}
    assert len(listed(tenant, other)) == 4


def test_a_session_erased_after_an_export_written_before_turn_ids_keeps_its_keyed_lines_out(
        ctx, tenant, runtime, tmp_path):
    """A line naming no turn is known by its idempotency key: the erased session's keyed turn is counted
    `erased`, its key kept by the erasure; its keyless turn is stored again, as a new turn, nothing telling
    its line from a new one (the README says so)."""
    from memex import backfill

    sent(tenant, "gone", "2025-03-01T10:00:00Z", "I work at Acme.", idempotency_key="k-acme")
    sent(tenant, "gone", "2025-03-02T10:00:00Z", "I have a cat.")
    path = tmp_path / "before-turn-ids.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "turn_id"}) + "\n"
                            for line in export.lines(ctx, tenant.id, tenant.user)), encoding="utf-8")
    assert tenant.delete("/v1/sessions/gone", params={"user_id": tenant.user}).status_code == 200

    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=300)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert {k: state[k] for k in ("status", "done", "already_stored", "erased", "failed")} == {
        "status": "done", "done": 1, "already_stored": 0, "erased": 1, "failed": 0}
    assert [t["messages"][0]["content"] for t in listed(tenant)] == ["I have a cat."]
    assert _facts(tenant, tenant.user) == {("pet_kind", "cat")}


def _facts(tenant, user: str) -> set[tuple[str, str]]:
    page = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500}).json()
    return {(m["key"], m["value"]) for m in page["memories"] if m["key"]}


def test_a_fact_erased_by_id_does_not_come_back_through_an_export(ctx, tenant, runtime, tmp_path):
    """Erasure is final, an import too: the export leaves out the message an erased fact was drawn from
    (its tombstone names it), and the whole turn when its tombstone names none (written before migration
    0051), which turn's other messages are lost with it; a turn left with no message is left out. The
    export says on stderr how many, and why."""
    sent(tenant, "s1", "2025-03-01T10:00:00Z", "I live in Porto.", "I have a dog.")
    sent(tenant, "s1", "2025-03-02T10:00:00Z", "I work at Stripe.")
    old = sent(tenant, "s1", "2025-03-03T10:00:00Z", "My sister is called Anna.", "I love jazz.")
    sent(tenant, "s1", "2025-03-04T10:00:00Z", "I play the cello.")
    facts = _facts(tenant, tenant.user)
    erased = {("city", "Porto"), ("employer", "Stripe"), ("sister_name", "Anna")}
    assert erased <= facts
    page = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
    for memory in page:
        if (memory["key"], memory["value"]) in erased:
            assert tenant.delete(f"/v1/memories/{memory['id']}").status_code == 200
    with ctx.db.transaction() as conn:  # Anna's tombstone as an erasure before migration 0051 wrote it
        assert conn.execute("UPDATE tombstones SET message_id = '' WHERE tenant_id = %s AND turn_id = %s",
                            (tenant.id, old)).rowcount == 1
    kept = _facts(tenant, tenant.user)
    assert not erased & kept and {("pet_kind", "dog"), ("likes", "jazz")} <= kept

    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    out = tmp_path / "export.jsonl"
    done = memex_cli("export", "--tenant", tenant.id, "--user", tenant.user, "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert (f"memex export: 2 turns of user {tenant.user} (tenant {tenant.id}) to {out}; left out: 2 messages"
            " that said a fact erased by id, 1 turn a fact erased before migration 0051 was drawn from"
            " (which of its messages is not recorded), 1 turn left with no message;") in done.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [[m["content"] for m in line["messages"]] for line in lines] == [["I have a dog."], ["I play the cello."]]

    # Imported into the same user (a restore), and as another's: the erased facts do not come back.
    import_lines(ctx, tenant, runtime, tmp_path, lines)
    assert not erased & _facts(tenant, tenant.user)
    other = f"{tenant.user}-b"
    import_lines(ctx, tenant, runtime, tmp_path, [{**line, "user_id": other} for line in lines])
    assert _facts(tenant, other) == {("pet_kind", "dog"), ("hobby", "cello")}  # jazz was lost with Anna


def test_a_fact_erased_by_id_and_said_again_elsewhere_does_not_come_back_through_an_export(ctx, tenant, runtime,
                                                                                            tmp_path):
    """The review's case: "I live in Porto." said twice is one memory, drawn from the first turn; erased,
    the second turn's message, which says it too, is left out of the export as well, and a message that
    holds the value within a longer word is kept."""
    sent(tenant, "s1", "2025-03-01T10:00:00Z", "I live in Porto.", "I have a dog.")
    sent(tenant, "s2", "2025-03-05T10:00:00Z", "i LIVE in  porto!")
    sent(tenant, "s2", "2025-03-06T10:00:00Z", "I play the cello.", "Portobello Road is busy.")
    page = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
    porto = [m for m in page if (m["key"], m["value"]) == ("city", "Porto")]
    assert len(porto) == 1
    assert tenant.delete(f"/v1/memories/{porto[0]['id']}").status_code == 200

    left_out = export.LeftOut()
    lines = [json.loads(line) for line in export.lines(ctx, tenant.id, tenant.user, left_out=left_out)]
    assert [[m["content"] for m in line["messages"]] for line in lines] == [
        ["I have a dog."], ["I play the cello.", "Portobello Road is busy."]]
    assert (left_out.messages, left_out.turns_emptied) == (2, 1)

    other = f"{tenant.user}-b"
    import_lines(ctx, tenant, runtime, tmp_path, [{**line, "user_id": other} for line in lines])
    assert {("pet_kind", "dog"), ("hobby", "cello")} <= _facts(tenant, other)
    assert ("city", "Porto") not in _facts(tenant, other)
    import_lines(ctx, tenant, runtime, tmp_path, lines)  # the same user's restore: every turn found stored
    assert ("city", "Porto") not in _facts(tenant, tenant.user)


def test_a_value_its_own_message_does_not_say_in_words_leaves_out_no_other_message(ctx, tenant):
    """"I don't drink coffee." files drinks_coffee "no", a value no message says in those words: erased, its
    own message is left out, and a message that holds the word "no" is not (each one was, left out as if it
    said the value again)."""
    sent(tenant, "s1", "2025-03-01T10:00:00Z", "I don't drink coffee.")
    sent(tenant, "s2", "2025-03-05T10:00:00Z", "No idea what to cook tonight.", "I have no car.")
    page = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
    coffee = [m for m in page if (m["key"], m["value"]) == ("drinks_coffee", "no")]
    assert len(coffee) == 1
    assert tenant.delete(f"/v1/memories/{coffee[0]['id']}").status_code == 200
    lines = [json.loads(line) for line in export.lines(ctx, tenant.id, tenant.user)]
    assert [[m["content"] for m in line["messages"]] for line in lines] == [
        ["No idea what to cook tonight.", "I have no car."]]


def test_an_export_pages_its_turns_and_takes_those_sent_meanwhile_after_its_last_page(ctx, tenant, monkeypatch):
    """`lines` reads a page at a time: two turns said at one instant across a page's end are each exported
    once, in the order received, and a turn sent while it exports is exported if said after the last page
    read (as a listing pages it), not if said before."""
    monkeypatch.setattr(export, "LINES_PER_PAGE", 1)
    sent(tenant, "s1", "2026-03-01T10:00:00Z", "I live in Porto.")
    sent(tenant, "s1", "2026-03-02T10:00:00Z", "I have a dog.")
    sent(tenant, "s1", "2026-03-02T10:00:00Z", "I have a cat.")  # the same instant, received later
    exporting = export.lines(ctx, tenant.id, tenant.user)
    said = [json.loads(next(exporting))["messages"][0]["content"]]
    sent(tenant, "s2", "2026-02-01T10:00:00Z", "I work at Stripe.")  # before the page read: not exported
    sent(tenant, "s2", "2026-03-03T10:00:00Z", "I play the cello.")
    said += [json.loads(line)["messages"][0]["content"] for line in exporting]
    assert said == ["I live in Porto.", "I have a dog.", "I have a cat.", "I play the cello."]


def _imported(ctx, tenant, runtime, path, lines: list[str]) -> dict:
    """`lines` imported by a backfill job: its counts once done."""
    from memex import backfill

    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=300)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    return {k: state[k] for k in ("status", "done", "already_stored", "erased", "failed")}


def test_a_restore_of_a_restore_keeps_every_turn_it_came_from_erased(ctx, tenant, runtime, tmp_path):
    """A user's turn given to another (an export for them: a turn of their own under a new id, keeping a digest of
    the one it came from), that one's export restored after a loss (under its id again, with what its line says it
    came from), then the session erased: a restore of either backup, the older naming the first user's turn, finds
    it erased. The first user's turn stays theirs."""
    first = sent(tenant, "s", "2025-03-01T10:00:00Z", "I have a cat.")
    other = f"{tenant.user}-b"
    older = list(export.lines(ctx, tenant.id, tenant.user, as_user=other))
    assert _imported(ctx, tenant, runtime, tmp_path / "older.jsonl", older)["done"] == 1
    [moved] = [t["turn_id"] for t in listed(tenant, other)]
    assert moved != first
    newer = list(export.lines(ctx, tenant.id, other))
    assert [json.loads(line)["turn_id"] for line in newer] == [moved]
    with ctx.db.transaction() as conn:  # a partial loss, restored under the id it had
        conn.execute("DELETE FROM turns WHERE tenant_id = %s AND id = %s", (tenant.id, moved))
    assert _imported(ctx, tenant, runtime, tmp_path / "newer.jsonl", newer)["done"] == 1
    assert [t["turn_id"] for t in listed(tenant, other)] == [moved]
    assert tenant.delete("/v1/sessions/s", params={"user_id": other}).status_code == 200

    for name, lines in (("older", older), ("newer", newer)):
        assert _imported(ctx, tenant, runtime, tmp_path / f"{name}.jsonl", lines) == {
            "status": "done", "done": 0, "already_stored": 0, "erased": 1, "failed": 0}, name
        assert listed(tenant, other) == [] and _facts(tenant, other) == set()
    assert [t["turn_id"] for t in listed(tenant)] == [first]


def test_a_third_users_erasure_of_a_turn_given_on_holds_back_no_restore_of_the_users_before(ctx, tenant, runtime,
                                                                                           tmp_path):
    """A turn given on twice (u0's to u1, then u1's to u2 by an export `--as-user` and to u3 by u1's backup rewritten
    by hand, as docs/backfills.md's `jq`), then u2's and u3's sessions erased: u1, who lost their turn (not erased),
    restores it from their own backup. The digests a turn keeps are salted with its own user, so neither the line
    given to u2 carries u1's nor u3's turn keeps those its line carries: their erasures keep their own alone."""
    u1, u2, u3 = f"{tenant.user}-b", f"{tenant.user}-c", f"{tenant.user}-d"
    sent(tenant, "s", "2025-03-01T10:00:00Z", "I have a cat.")
    assert _imported(ctx, tenant, runtime, tmp_path / "u1.jsonl",
                     list(export.lines(ctx, tenant.id, tenant.user, as_user=u1)))["done"] == 1
    [mine] = [t["turn_id"] for t in listed(tenant, u1)]
    backup = list(export.lines(ctx, tenant.id, u1))
    assert "imported_from_digests" in json.loads(backup[0])
    given = list(export.lines(ctx, tenant.id, u1, as_user=u2))
    assert "imported_from_digests" not in json.loads(given[0])
    renamed = json.dumps({**json.loads(backup[0]), "user_id": u3})
    assert _imported(ctx, tenant, runtime, tmp_path / "u2.jsonl", [*given, renamed])["done"] == 2
    with ctx.db.transaction() as conn:
        kept = conn.execute("SELECT imported_from_digests AS d, erased_digest(tenant_id, user_id, %s) AS moved_from"
                            " FROM turns WHERE tenant_id = %s AND user_id = ANY(%s)",
                            (mine, tenant.id, [u2, u3])).fetchall()
    assert len(kept) == 2 and all(r["d"] == [r["moved_from"]] for r in kept)
    for user in (u2, u3):
        assert tenant.delete("/v1/sessions/s", params={"user_id": user}).status_code == 200
    with ctx.db.transaction() as conn:  # u1's loss
        conn.execute("DELETE FROM turns WHERE tenant_id = %s AND id = %s", (tenant.id, mine))

    assert _imported(ctx, tenant, runtime, tmp_path / "backup.jsonl", backup) == {
        "status": "done", "done": 1, "already_stored": 0, "erased": 0, "failed": 0}
    assert [t["turn_id"] for t in listed(tenant, u1)] == [mine] and _facts(tenant, u1) == {("pet_kind", "cat")}


def test_an_export_written_before_a_users_erasure_stores_nothing_of_them(ctx, tenant, runtime, tmp_path):
    """Erasure is final, a user's too: their erasure keeps digests of their turns' ids and keys, salted with whose
    they were (no id, no key, nothing said), and their export written before, restored, counts each line `erased`
    and stores nothing; so does a turn sent again with its key. The way back for an operator who must re-create
    the user from a backup is deliberate: the lines given to another user id are stored. A tenant's deletion takes
    the digests with every row of the tenant."""
    sent(tenant, "s1", "2025-03-01T10:00:00Z", "I work at Acme.", idempotency_key="k-acme")
    sent(tenant, "s2", "2025-03-02T10:00:00Z", "I have a cat.")
    backup = list(export.lines(ctx, tenant.id, tenant.user))
    ids = [json.loads(line)["turn_id"] for line in backup]
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200
    with ctx.db.transaction() as conn:
        kept = conn.execute("SELECT * FROM erased_turn_digests WHERE tenant_id = %s", (tenant.id,)).fetchall()
    assert len(kept) == 2 and not {*ids, tenant.user, "k-acme"} & {v for r in kept for v in r.values()}

    for _ in range(2):  # the restore, and the same file again
        assert _imported(ctx, tenant, runtime, tmp_path / "backup.jsonl", backup) == {
            "status": "done", "done": 0, "already_stored": 0, "erased": 2, "failed": 0}
        assert listed(tenant) == [] and _facts(tenant, tenant.user) == set()
    again = tenant.turn("I work at Acme.", session="s1", timestamp="2025-03-01T10:00:00Z", idempotency_key="k-acme")
    assert again.status_code == 409 and again.json()["error"]["code"] == "turn_erased", again.text
    assert sent(tenant, "s3", None, "I live in Lisbon.")  # what the user says after the erasure is new
    assert [t["messages"][0]["content"] for t in listed(tenant)] == ["I live in Lisbon."]

    renamed = f"{tenant.user}-restored"
    assert _imported(ctx, tenant, runtime, tmp_path / "renamed.jsonl", [
        json.dumps({**json.loads(line), "user_id": renamed}) for line in backup])["done"] == 2
    assert _facts(tenant, renamed) == {("employer", "Acme"), ("pet_kind", "cat")}
