"""The queue contract: every message the publisher sends is one AWS SQS would accept (moto accepts
more), and FIFO group ids are safe whatever characters a tenant's or user's id holds."""

from __future__ import annotations

import logging
import re

import pytest

from memex.jobs import ExtractionJob, SupersessionJob
from memex.ports import BATCH_MAX
from memex_edge.sqs import MAX_BODY_BYTES, QueueContractError, check_message

AWS_FIFO_ID = re.compile(r"[A-Za-z0-9!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}")
HOSTILE_IDS = ["José Ñ", "u" * 300, "a b\tc", "用户", "x:y", "😀", "\x7f"]


@pytest.mark.parametrize("user_id", HOSTILE_IDS)
def test_group_ids_follow_aws_rules_whatever_the_ids(user_id):
    job = SupersessionJob("tenant:" + user_id, user_id, "turn")
    assert AWS_FIFO_ID.fullmatch(job.group_id), job.group_id


def test_group_ids_differ_per_tenant_and_user_and_do_not_collide_on_separators():
    ids = {SupersessionJob(t, u, "turn").group_id for t, u in [("a", "b:c"), ("a:b", "c"), ("a", "bc"), ("b", "b:c")]}
    assert len(ids) == 4
    assert SupersessionJob("a", "b", "t1").group_id == SupersessionJob("a", "b", "t2").group_id


@pytest.mark.parametrize("body, group, dedup", [
    ("x" * (MAX_BODY_BYTES + 1), None, None),
    ("é" * (MAX_BODY_BYTES // 2 + 1), None, None),  # the limit is in bytes, not characters
    ("nul \x00 byte", None, None),
    ("lone \ud800 surrogate", None, None),
    ("{}", "José Ñ", "d"),
    ("{}", "g" * 129, "d"),
    ("{}", "", "d"),
    ("{}", "g", "with space"),
])
def test_what_aws_refuses_is_refused_before_sending(body, group, dedup):
    with pytest.raises(QueueContractError):
        check_message(body, group, dedup)


def test_what_aws_accepts_passes():
    check_message("x" * MAX_BODY_BYTES)
    check_message("tab\t newline\n é 😀", "g" * 128, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def test_the_publisher_refuses_an_oversized_body_that_moto_would_take(ctx):
    with pytest.raises(QueueContractError, match="bytes"):
        ctx.publisher.publish_extraction(ExtractionJob("t", "x" * (MAX_BODY_BYTES + 1)))


def test_a_batch_sends_what_aws_accepts_and_not_the_message_it_would_refuse(ctx, runtime):
    """One message of a batch over SQS's limit is not sent (moto would take it); the rest of the batch is."""
    taken = ctx.publisher.publish_extractions([ExtractionJob("t", "x" * (MAX_BODY_BYTES + 1)), ExtractionJob("t", "no-such-turn")])
    assert taken == [False, True]
    runtime.drain()  # the extract worker takes it (no such turn: nothing to do)


def test_a_batch_over_sqs_limit_as_a_whole_is_not_sent_and_the_log_says_so(ctx, caplog):
    """Each body within SQS's limit, together over it (its limit on a batch is its limit on a message):
    none is sent, each answered not taken, and the log says why; not raised as a queue that failed (the
    sweep took that for the queue down, logged it so and tried none of the queue's other batches)."""
    jobs = [ExtractionJob("t", f"{n}-" + "x" * (MAX_BODY_BYTES // 8)) for n in range(BATCH_MAX)]
    with caplog.at_level(logging.WARNING, logger="memex.edge"):
        taken = ctx.publisher.publish_extractions(jobs)
    assert taken == [False] * BATCH_MAX
    [line] = [r.getMessage() for r in caplog.records if r.name == "memex.edge"]
    size = sum(len(job.to_json()) for job in jobs)
    assert line == (f"a batch of {BATCH_MAX} messages was not sent: their bodies are {size} bytes together; "
                    f"SQS accepts at most {MAX_BODY_BYTES} in a batch")


@pytest.mark.parametrize("refused", ["José Ñ", "g" * 200])
def test_the_queue_itself_refuses_what_aws_refuses_and_takes_the_ids_memex_makes(aws, ctx, runtime, refused):
    """Straight to the FIFO queue, past the publisher's own check, LocalStack refuses such a group
    id as AWS does; through the publisher, it takes the ids memex derives from the same user."""
    if aws.kind != "localstack":
        pytest.skip("moto accepts any group id; make test-localstack runs this against LocalStack")
    from botocore.exceptions import ClientError

    sqs = aws.client("sqs")
    url = runtime.queues["memex-supersession"]["url"]
    with pytest.raises(ClientError, match="MessageGroupId"):
        sqs.send_message(QueueUrl=url, MessageBody="{}", MessageGroupId=refused, MessageDeduplicationId="d")
    ctx.publisher.publish_supersession(SupersessionJob("tenant:" + refused, refused, "turn"))
    assert int(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
               ["Attributes"]["ApproximateNumberOfMessages"]) == 1
    runtime.drain()  # the supersede worker takes it (no such turn: nothing to decide)


def test_a_user_id_with_accents_and_length_goes_through_the_fifo_queue(tenant, runtime):
    user = "José.Ñ_" + "ü" * 200  # refused by SQS as a group id; the hashed group id is not
    assert tenant.turn("I live in Porto.", user=user, wait=False).status_code == 202
    runtime.drain()
    memories = tenant.get("/v1/memories/count", params={"user_id": user}).json()["count"]
    assert memories >= 2  # the episodic memory and the city, decided through the supersession queue
