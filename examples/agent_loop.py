"""An agent that remembers: it recalls what memex knows before answering, and sends the turn after.

Works with any OpenAI-compatible chat endpoint. Needs `pip install ./clients/python openai`.

    # memex: MEMEX_BASE_URL (default http://127.0.0.1:8080), MEMEX_API_KEY when keys are required
    # the model: OPENAI_BASE_URL and OPENAI_API_KEY as the openai SDK reads them, or the flags
    python examples/agent_loop.py --user alice --model gpt-4o-mini
    OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=ollama \\
        python examples/agent_loop.py --user alice --model llama3.1

Type a message per line; an empty line or end of input stops. `--message TEXT` (repeatable) sends
those messages instead, without a prompt. `--wait` has memex process each turn before the next
message, so the facts it states are recalled at once (otherwise the workers take it in the
background). The last exchanges go to the model as they are, so recall is asked without the
session (which would add them again as its recent messages).
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from typing import Iterator

from openai import OpenAI

from memex_client import MemexClient

SYSTEM = "You are a helpful assistant with a long-term memory of this user. Use it when it is relevant."
# The last exchanges of this conversation, sent as they are; older ones reach the model through recall.
SHORT_TERM_MESSAGES = 10


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--user", default="demo-user", help="the memex user_id the memories belong to")
    parser.add_argument("--session", default=None, help="the session_id of this conversation (default: a new one)")
    parser.add_argument("--model", default=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    parser.add_argument("--openai-base-url", default=None, help="default: OPENAI_BASE_URL, else OpenAI's")
    parser.add_argument("--memex-url", default=None, help="default: MEMEX_BASE_URL, else http://127.0.0.1:8080")
    parser.add_argument("--max-tokens", type=int, default=800, help="the recalled context's token budget")
    parser.add_argument("--wait", action="store_true", help="have memex process each turn before the next")
    parser.add_argument("--message", action="append", help="a message to send; repeat for several")
    return parser.parse_args(argv)


def typed_messages() -> Iterator[str]:
    while True:
        try:
            text = input("you: ").strip()
        except EOFError:
            return
        if not text:
            return
        yield text


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    session = args.session or f"chat-{uuid.uuid4().hex[:12]}"
    llm = OpenAI(base_url=args.openai_base_url)  # None: the SDK reads OPENAI_BASE_URL
    recent: list[dict[str, str]] = []
    with MemexClient(base_url=args.memex_url) as memex:
        for text in args.message or typed_messages():
            # No session_id: its recent messages are `recent` here already, sent as they are.
            recalled = memex.recall(args.user, text, max_tokens=args.max_tokens)
            count = len(recalled.citations)
            print(f"[memex: {count} {'memory' if count == 1 else 'memories'}, {recalled.token_count} tokens]",
                  file=sys.stderr)
            system = f"{SYSTEM}\n\n{recalled.context}" if recalled.context else SYSTEM
            completion = llm.chat.completions.create(model=args.model, messages=[
                {"role": "system", "content": system}, *recent, {"role": "user", "content": text},
            ])
            answer = completion.choices[0].message.content or ""
            print(f"assistant: {answer}", flush=True)
            exchange = [{"role": "user", "content": text}, {"role": "assistant", "content": answer}]
            memex.add_turn(args.user, session, exchange, wait=args.wait)
            recent = (recent + exchange)[-SHORT_TERM_MESSAGES:]


if __name__ == "__main__":
    main()
