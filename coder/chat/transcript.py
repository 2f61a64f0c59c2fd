"""The chat's transcript: every message of the conversation appended to a markdown file as it
is sent or received (.coder.chat.history.md)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from coder.seams.model import Message


def append_messages(path: Path, messages: Iterable[Message]) -> None:
    """Add messages to the transcript at path: each under a heading naming its role (and the
    call it answers), with the function calls it makes."""
    with path.open("a", encoding="utf-8") as log:
        for m in messages:
            calls = "".join(f"\n\n{c.name}({c.arguments})" for c in m.tool_calls)
            role = f"{m.role} ({m.tool_call_id})" if m.tool_call_id else m.role
            log.write(f"#### {role}\n\n{m.content}{calls}\n\n")
