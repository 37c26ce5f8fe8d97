"""examples/agent_loop.py, run as a user runs it: against the local runtime served on loopback and
the OpenAI-compatible test double, through the real `openai` SDK and the installed memex client."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.openai_double import OpenAIDouble
from memex_client import MemexClient
from tests.conftest import ROOT, served


def _looped(base_url: str, model: OpenAIDouble, tenant, *args: str) -> subprocess.CompletedProcess:
    """examples/agent_loop.py run to its end with `args`, its turns sent and waited for; it exited 0."""
    env = {**os.environ, "MEMEX_BASE_URL": base_url, "MEMEX_API_KEY": tenant.key,
           "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "unused"}
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "agent_loop.py"), "--user", tenant.user,
                          "--model", "test-model", "--wait", *args], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run


def test_the_agent_loop_recalls_before_answering_and_sends_each_turn_after(runtime, tenant):
    with served(runtime.asgi_app()) as base_url, OpenAIDouble() as model:
        model.script_chat("Noted: Lisbon, and Stripe.", "You live in Lisbon.")
        run = _looped(base_url, model, tenant, "--session", "s1", "--message", "I live in Lisbon and I work at Stripe.",
                      "--message", "Where am I living?")
        assert run.stdout.splitlines() == ["assistant: Noted: Lisbon, and Stripe.", "assistant: You live in Lisbon."]

        first, second = model.chat_requests
        assert first["model"] == second["model"] == "test-model"
        # Nothing was known before the first message; the second is answered with what it taught.
        assert "Lisbon" not in first["messages"][0]["content"]
        assert first["messages"][0]["role"] == "system"
        assert "The user lives in Lisbon." in second["messages"][0]["content"]
        assert second["messages"][-1] == {"role": "user", "content": "Where am I living?"}

        with MemexClient(tenant.key, base_url) as memex:
            city = memex.search(tenant.user, "Lisbon", filters={"memory_type": "semantic"}).results
            assert [m.value for m in city if m.key == "city"] == ["Lisbon"]
            # Both exchanges were sent as turns, the assistant's answers with them.
            assert memex.delete_session("s1", user_id=tenant.user).deleted["turns"] == 2


def test_the_agent_loop_counts_its_memories(runtime, tenant):
    """The README's exchange, line for line; and one memory is "memory" (the loop printed "1 memories")."""
    with served(runtime.asgi_app()) as base_url, OpenAIDouble() as model:
        model.chat_default = "Got it."
        run = _looped(base_url, model, tenant, "--message", "I live in Lisbon.", "--message", "Where am I living?")
        assert run.stderr.splitlines() == ["[memex: 0 memories, 0 tokens]", "[memex: 2 memories, 20 tokens]"]
        run = _looped(base_url, model, tenant, "--user", f"{tenant.user}-veg", "--message", "I'm vegetarian.",
                      "--message", "Any dinner ideas?")
        assert run.stderr.splitlines() == ["[memex: 0 memories, 0 tokens]", "[memex: 1 memory, 13 tokens]"]
