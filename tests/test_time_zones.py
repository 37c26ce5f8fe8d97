"""A user in another time zone: a question's "yesterday", "last week" or "in May" and recall's
"(said …)" days are read in the zone of the request's `reference_time` (or `as_of`) when it carries
an offset, and in UTC when it does not, as before; a request with neither reads the offset of the
user's latest turn sent with one (UTC if none was). Through the HTTP API and the embedded Postgres."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

from memex import time_phrases

TOKYO = timezone(timedelta(hours=9))
KOLKATA = timezone(timedelta(hours=5, minutes=30))


def _tokyo(tenant, timestamps_in_utc: bool):
    """Kenji in Tokyo: "tonight" said on the morning of 1 March, "yesterday" on the morning of 2 March
    (still 1 March in UTC); sent with the Tokyo offset or as the same instants in UTC."""
    for local, text in (("2026-03-01T07:30:00", "Tonight I'm seeing Anna."),
                        ("2026-03-02T08:30:00", "Yesterday I adopted a cat.")):
        moment = datetime.fromisoformat(local).replace(tzinfo=TOKYO)
        sent = moment.astimezone(timezone.utc).isoformat() if timestamps_in_utc else moment.isoformat()
        assert tenant.turn(text, timestamp=sent).status_code == 201


def _said(tenant, question, **times):
    return [(r["content"], r["score_parts"]["said_within"]) for r in tenant.search(question, **times)]


def test_a_question_asked_with_an_offset_reads_yesterday_as_the_users_day(tenant):
    """Asked at 09:00 on 2 March in Tokyo, "yesterday" is 1 March in Tokyo: the evening plan said
    that morning, not the cat said this morning (which the UTC day, 1 March, holds)."""
    _tokyo(tenant, timestamps_in_utc=True)  # the zone is the question's, however the turns were sent
    assert _said(tenant, "what did I do yesterday?", reference_time="2026-03-02T09:00:00+09:00") == [
        ("Tonight I'm seeing Anna.", "2026-02-28T15:00:00Z/2026-03-01T21:00:00Z")]
    # as_of is the question's now when no reference_time is sent: its offset too
    assert _said(tenant, "what did I do yesterday?", as_of="2026-03-02T09:00:00+09:00") == [
        ("Tonight I'm seeing Anna.", "2026-02-28T15:00:00Z/2026-03-01T21:00:00Z")]
    # the same instant in UTC reads the UTC day, as every request without an offset always has
    assert _said(tenant, "what did I do yesterday?", reference_time="2026-03-02T00:00:00Z") == [
        ("Yesterday I adopted a cat.", "2026-03-01T00:00:00Z/2026-03-02T06:00:00Z")]


def test_recall_says_the_day_in_the_zone_it_was_asked_in(tenant):
    """"Yesterday I adopted a cat", said at 08:30 on 2 March in Tokyo, was said on 2 March there: the
    cat came on 1 March. Recall asked with the Tokyo offset says so; asked in UTC, the UTC day."""
    _tokyo(tenant, timestamps_in_utc=False)

    def lines(**times):
        body = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?", **times}).json()
        return body["context"].splitlines()

    local = lines(reference_time="2026-03-05T09:00:00+09:00")
    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in local, local
    assert "- Tonight I'm seeing Anna. (said 2026-03-01)" in local, local
    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in lines(as_of="2026-03-05T09:00:00+09:00")
    utc = lines(reference_time="2026-03-05T00:00:00Z")
    assert "- Yesterday I adopted a cat. (said 2026-03-01)" in utc, utc
    assert "- Tonight I'm seeing Anna. (said 2026-02-28)" in utc, utc


def test_los_angeles_after_the_clocks_go_forward(tenant):
    """Los Angeles, the evening of Sunday 8 March 2026 (PDT from 02:00 that day, -07:00), is Monday in
    UTC: asked on Monday morning there, it was yesterday, and recall dates it Sunday."""
    assert tenant.turn("Tonight I'm seeing Anna.", timestamp="2026-03-08T20:00:00-07:00").status_code == 201
    asked = "2026-03-09T10:00:00-07:00"
    assert _said(tenant, "what did I do yesterday?", reference_time=asked) == [
        ("Tonight I'm seeing Anna.", "2026-03-08T07:00:00Z/2026-03-09T13:00:00Z")]
    body = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "who am I seeing?",
                                      "reference_time": asked}).json()
    assert "- Tonight I'm seeing Anna. (said 2026-03-08)" in body["context"].splitlines(), body["context"]


def test_a_turns_offset_is_the_same_instant_on_the_wire(tenant):
    """A timestamp's offset dates the turn at that instant; answers send it in UTC, as every time. The job
    holds from the start of last Monday in that offset (midnight there), the message from when it was said."""
    turn = tenant.turn("Last Monday I started at Acme.", timestamp="2026-03-04T00:30:00+05:30").json()
    assert turn["occurred_at"] == "2026-03-03T19:00:00Z"
    assert {m["memory_type"]: m["valid_from"] for m in turn["memories"]} == {
        "episodic": "2026-03-03T19:00:00Z", "semantic": "2026-03-01T18:30:00Z"}


def test_a_weekday_is_the_users_day(tenant):
    """Asked on Wednesday 4 March in Tokyo, "last Sunday" is 1 March in Tokyo: the plan said that
    morning, not the cat said on Monday morning there (Sunday evening in UTC)."""
    _tokyo(tenant, timestamps_in_utc=False)
    assert _said(tenant, "what did I do last Sunday?", reference_time="2026-03-04T09:00:00+09:00") == [
        ("Tonight I'm seeing Anna.", "2026-02-28T15:00:00Z/2026-03-01T15:00:00Z")]
    assert _said(tenant, "what did I do last Sunday?", reference_time="2026-03-04T00:00:00Z") == [
        ("Yesterday I adopted a cat.", "2026-03-01T00:00:00Z/2026-03-02T00:00:00Z")]


def test_the_phrases_count_days_from_the_zone_of_now():
    """The domain reads a phrase in the zone of the `now` it is given (a half-hour zone too)."""
    now = datetime(2026, 3, 4, 0, 30, tzinfo=KOLKATA)  # Wednesday there, Tuesday in UTC
    assert time_phrases.windows("yesterday", now) == [
        (datetime(2026, 3, 3, tzinfo=KOLKATA), datetime(2026, 3, 4, 6, tzinfo=KOLKATA))]
    (start, _), = time_phrases.windows("last week", now)
    assert start == datetime(2026, 2, 23, tzinfo=KOLKATA)  # the Monday before this one, there
    assert time_phrases.windows("last Tuesday", now) == [  # yesterday there, not a week before
        (datetime(2026, 3, 3, tzinfo=KOLKATA), datetime(2026, 3, 4, tzinfo=KOLKATA))]
    assert time_phrases.windows("in May", now) == [
        (datetime(2025, 5, 1, tzinfo=KOLKATA), datetime(2025, 6, 1, tzinfo=KOLKATA))]


def _yesterday(now: datetime) -> tuple[datetime, datetime]:
    (window,) = time_phrases.windows("yesterday", now)
    return window


def _only_in(window: tuple[datetime, datetime], other: tuple[datetime, datetime]) -> datetime:
    """An instant in `window` and not in `other` (the same length, shifted), already past: an hour
    into the part of `window` that `other` leaves out."""
    start, end = window
    return start + timedelta(hours=1) if start < other[0] else other[1] + timedelta(hours=1)


def _wire(window: tuple[datetime, datetime]) -> str:
    return "/".join(moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z") for moment in window)


def _clear_of_midnight(seconds: float = 120.0) -> None:
    """Waits out a day's end in Tokyo or UTC due within `seconds`: the tests below compute "yesterday"
    from their own now and the service from its own, a few requests later; a day beginning in between
    made the two differ (at 00:00 UTC and at 15:00 UTC, when Tokyo's day begins)."""
    for zone in (timezone.utc, TOKYO):
        now = datetime.now(zone)
        left = (datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), zone) - now).total_seconds()
        if left < seconds:
            time.sleep(left + 1)


def test_without_a_reference_time_yesterday_is_the_day_of_the_users_latest_offset(tenant):
    """A Tokyo user's agent that sends its turns' timestamps with +09:00 and asks without a
    reference_time: "yesterday" is the user's yesterday in Tokyo, not UTC's (whatever the hour
    now, an hour of the one that is not the other's answers each)."""
    _clear_of_midnight()
    tokyo, utc = _yesterday(datetime.now(TOKYO)), _yesterday(datetime.now(timezone.utc))
    for text, said in (("I went to the onsen.", _only_in(tokyo, utc)), ("I went to the cinema.", _only_in(utc, tokyo))):
        assert tenant.turn(text, timestamp=said.astimezone(TOKYO).isoformat()).status_code == 201
    assert _said(tenant, "what did I do yesterday?") == [("I went to the onsen.", _wire(tokyo))]
    # a reference_time wins, with its own offset (UTC here), as before
    asked = datetime.now(timezone.utc).isoformat()
    assert _said(tenant, "what did I do yesterday?", reference_time=asked) == [
        ("I went to the cinema.", _wire(_yesterday(datetime.fromisoformat(asked))))]


def test_without_a_reference_time_recall_dates_in_the_users_latest_offset(tenant):
    """Recall without reference_time or as_of names the days of the user's latest offset (Tokyo);
    an `as_of` in UTC still reads UTC days."""
    _tokyo(tenant, timestamps_in_utc=False)
    # later turns sent with a timestamp without an offset, or none, say nothing of the zone
    assert tenant.turn("Thanks!", timestamp="2026-03-03T00:00:00").status_code == 201
    assert tenant.turn("Thanks again!").status_code == 201
    context = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?"}).json()["context"]
    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in context.splitlines(), context
    assert "- Tonight I'm seeing Anna. (said 2026-03-01)" in context.splitlines(), context
    utc = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?",
                                     "as_of": "2026-03-05T00:00:00Z"}).json()["context"]
    assert "- Yesterday I adopted a cat. (said 2026-03-01)" in utc.splitlines(), utc


def test_a_user_who_never_sent_an_offset_reads_utc_days(tenant):
    """Timestamps without an offset, or none: UTC days, as before."""
    _clear_of_midnight()
    assert tenant.turn("Yesterday I adopted a cat.", timestamp="2026-03-01T23:30:00").status_code == 201
    assert tenant.turn("Thanks!", timestamp="2026-03-02T00:00:00").status_code == 201
    context = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?"}).json()["context"]
    assert "- Yesterday I adopted a cat. (said 2026-03-01)" in context.splitlines(), context
    utc = _yesterday(datetime.now(timezone.utc))
    assert tenant.turn("I went to the cinema.", timestamp=(utc[0] + timedelta(hours=1)).replace(tzinfo=None).isoformat(),
                       session="s2").status_code == 201
    assert _said(tenant, "what did I do yesterday?") == [("I went to the cinema.", _wire(utc))]


def test_two_users_of_one_tenant_each_read_in_their_own_offset(tenant):
    """Kenji in Tokyo and Maria in Los Angeles, one tenant: each one's recall dates in their own
    offset, though Maria wrote last (a later turn, said later)."""
    maria = f"{tenant.user}-maria"
    assert tenant.turn("Yesterday I adopted a cat.", timestamp="2026-03-02T08:30:00+09:00").status_code == 201
    assert tenant.turn("Yesterday I adopted a dog.", timestamp="2026-03-02T18:30:00-08:00", user=maria).status_code == 201

    def context(user):
        return tenant.post("/v1/recall", {"user_id": user, "query": "did I adopt a pet?"}).json()["context"].splitlines()

    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in context(tenant.user)  # 1 March in UTC
    assert "- Yesterday I adopted a dog. (said 2026-03-02)" in context(maria)  # 3 March in UTC


def test_erasing_the_user_erases_their_offset(tenant, ctx):
    """The offset goes with the user's turns: none is left in the database, and the same user id
    written again without one reads UTC days. Erasing a session takes the offsets its turns had."""
    assert tenant.turn("Yesterday I adopted a cat.", timestamp="2026-03-02T08:30:00+09:00").status_code == 201
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200
    left = ctx.db.connection().execute("SELECT count(*) AS n FROM turns WHERE tenant_id = %s AND utc_offset IS NOT NULL",
                                       (tenant.id,)).fetchone()
    assert left["n"] == 0
    assert tenant.turn("Yesterday I adopted a cat.", timestamp="2026-03-01T23:30:00").status_code == 201
    context = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?"}).json()["context"]
    assert "- Yesterday I adopted a cat. (said 2026-03-01)" in context.splitlines(), context

    assert tenant.turn("I adopted a dog.", timestamp="2026-03-03T08:30:00+09:00", session="tokyo").status_code == 201
    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in tenant.post(
        "/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?"}).json()["context"].splitlines()
    assert tenant.delete("/v1/sessions/tokyo", params={"user_id": tenant.user}).status_code == 200
    context = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?"}).json()["context"]
    assert "- Yesterday I adopted a cat. (said 2026-03-01)" in context.splitlines(), context


def test_an_imported_turns_offset_is_kept_as_a_sent_ones_is(tenant, ctx, runtime, tmp_path):
    """An import's line with an offset sets the user's zone as a turn sent to the API does."""
    from memex import backfill

    path = tmp_path / "tokyo.jsonl"
    path.write_text(json.dumps({"user_id": tenant.user, "session_id": "s1", "timestamp": "2026-03-02T08:30:00+09:00",
                                "messages": [{"role": "user", "content": "Yesterday I adopted a cat."}]}) + "\n",
                    encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain()
    assert backfill.status(ctx, tenant.id, job.backfill_id)["done"] == 1
    context = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "did I adopt a pet?"}).json()["context"]
    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in context.splitlines(), context


def _recall_lines(tenant, user=None) -> list[str]:
    body = tenant.post("/v1/recall", {"user_id": user or tenant.user, "query": "did I adopt a pet?"}).json()
    return body["context"].splitlines()


def test_a_timestamp_that_carries_no_offset_leaves_the_users_zone_as_it_was(tenant):
    """A number of seconds (a JSON number or a string of digits, both of which the wire reads as unix
    time) or RFC 3339's "-00:00" (the offset unknown) says nothing of the user's zone: the Tokyo user's
    latest turn sent with an offset still rules, though these were said after it. Each is the instant
    it names."""
    from memex.models import TurnIn

    said = datetime(2026, 3, 3, tzinfo=timezone.utc)
    for sent in (said.timestamp(), str(int(said.timestamp())), "2026-03-03T00:00:00-00:00", "2026-03-03T00:00:00"):
        turn = TurnIn(user_id="u", session_id="s", messages=[{"role": "user", "content": "x"}], timestamp=sent)
        assert (turn.timestamp, turn.utc_offset) == (said, None), sent
    assert TurnIn(user_id="u", session_id="s", messages=[{"role": "user", "content": "x"}],
                  timestamp="2026-03-03T09:00:00+09:00").utc_offset == 540
    assert TurnIn(user_id="u", session_id="s", messages=[{"role": "user", "content": "x"}],
                  timestamp="2026-03-03T00:00:00Z").utc_offset == 0  # UTC, said so

    assert tenant.turn("Yesterday I adopted a cat.", timestamp="2026-03-02T08:30:00+09:00").status_code == 201
    for number, sent in enumerate((said.timestamp(), str(int(said.timestamp())), "2026-03-03T00:00:00-00:00")):
        response = tenant.turn("Thanks!", timestamp=sent, session=f"later{number}")
        assert response.status_code == 201, response.text
        assert response.json()["occurred_at"] == "2026-03-03T00:00:00Z"
        assert "- Yesterday I adopted a cat. (said 2026-03-02)" in _recall_lines(tenant), sent  # 1 March in UTC


def test_two_turns_of_one_instant_with_two_offsets_the_later_received_rules(tenant):
    """The same instant sent twice with two offsets (Tokyo, then UTC; for another user UTC, then
    Tokyo): the zone is the offset of the one received last, whatever order the rows lie in."""
    kenji, maria = tenant.user, f"{tenant.user}-maria"
    cat = "Yesterday I adopted a cat."  # said at 08:30 on 2 March in Tokyo, 23:30 on 1 March in UTC
    for user, offsets in ((kenji, ("2026-03-02T08:30:00+09:00", "2026-03-01T23:30:00+00:00")),
                          (maria, ("2026-03-01T23:30:00+00:00", "2026-03-02T08:30:00+09:00"))):
        for number, sent in enumerate(offsets):
            assert tenant.turn(cat if number == 0 else "Thanks!", timestamp=sent, user=user,
                               session=f"s{number}").status_code == 201
    assert "- Yesterday I adopted a cat. (said 2026-03-01)" in _recall_lines(tenant, kenji)
    assert "- Yesterday I adopted a cat. (said 2026-03-02)" in _recall_lines(tenant, maria)


def test_a_statements_own_time_is_read_in_the_users_zone(tenant):
    """"We got divorced in May.", said at 08:30 on 1 June in Tokyo (23:30 on 31 May in UTC): May is
    over there, so the divorce stands in history at the end of Tokyo's May (15:00 UTC on 31 May), not
    at the time said, which UTC's May still held. Said with the offset, or (the user's zone being
    Tokyo) with the same instant in a timestamp without one; a user who never sent an offset reads
    UTC's May, as before."""
    said = "2026-05-31T23:30:00"
    assert tenant.turn("I live in Kyoto.", timestamp="2026-05-30T09:00:00+09:00").status_code == 201
    for session, sent in (("tokyo", "2026-06-01T08:30:00+09:00"), ("plain", said)):
        memories = tenant.turn("We got divorced in May.", timestamp=sent, session=session).json()["memories"]
        assert [m["valid_from"] for m in memories if m["value"] == "divorced"] == ["2026-05-31T15:00:00Z"], memories
        assert tenant.delete(f"/v1/sessions/{session}", params={"user_id": tenant.user}).status_code == 200
    utc = f"{tenant.user}-utc"
    memories = tenant.turn("We got divorced in May.", timestamp=said, user=utc).json()["memories"]
    assert [m["valid_from"] for m in memories if m["value"] == "divorced"] == ["2026-05-31T23:30:00Z"], memories
