"""The messages of one request: the format's instructions and example, the files, the history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from coder.seams.model import Message
from editformats import EditFormat
from editformats.paths import shown

FILES_INTRO = (
    "These are the files in the chat, as they are now. Edit only these; if you need to see or"
    " change another file, say which and why."
)
READ_ONLY_INTRO = "These files are for reference only: do not edit them."
MAP_INTRO = (
    "A map of other files in the repository, for reference: each file's path, then the lines"
    " (with their numbers) that define its main symbols, the most relevant to the request"
    " first. These files are not in the chat: to change one, say which and why."
)
CONSISTENCY = (
    "Answer consistently: the same request about the same code should always get the same"
    " change from you. Make the smallest change that does what is asked, in the style of the"
    " surrounding code, and nothing the request does not call for."
)
"""Put before the system prompt with --consistency-prompt, after the consistency instruction of
the Patched RTC paper (Sharma 2024): a model that answers consistently passes the round-trip
check more often. The wording is coder's own."""
ASK_SYSTEM = (
    "You are an expert programmer. Answer the user's question about their code clearly and"
    " briefly. Do not edit any file."
)


HISTORY_CHARS = 200_000
"""The most history sent with a request when the model's context window is unknown (about
50,000 tokens); older turns are left out whole."""


def recent(history: Sequence[Message], budget: int = HISTORY_CHARS) -> list[Message]:
    """The latest turns of history that fit in budget characters, whole: it is only ever cut
    right before a user message, so that no function call is parted from its answers. The last
    turn is kept even when it alone is over the budget."""
    size = 0
    keep = len(history)
    for i in range(len(history) - 1, -1, -1):
        size += len(history[i].content) + sum(len(c.arguments) for c in history[i].tool_calls)
        if history[i].role == "user":
            if size > budget and keep < len(history):
                break
            keep = i
    return list(history[keep:])


def fenced(path: str, text: str) -> str:
    """A file shown to the model: its path, then its content in a fence that cannot break."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{shown(path)}\n{ticks}\n{body}{ticks}"


def build(
    fmt: EditFormat,
    files: Mapping[str, str],
    read_only: Mapping[str, str],
    history: Sequence[Message],
    user: str,
    consistent: bool = False,
    instead: str | None = None,
    history_budget: int = HISTORY_CHARS,
    repo_map: str = "",
) -> tuple[Message, ...]:
    """The messages for one request, in order; consistent puts CONSISTENCY first; instead is a
    system prompt that replaces the edit format's (a question, an architect's plan: no edit
    examples then). The repository map, when there is one, comes before the files. The history
    is trimmed to its latest whole turns within history_budget characters."""
    system = instead or fmt.system_prompt
    messages = [Message("system", f"{CONSISTENCY}\n\n{system}" if consistent else system)]
    if instead is None:
        messages += [
            Message(e.role, e.content, e.tool_calls, e.tool_call_id) for e in fmt.example_messages
        ]
    if repo_map:
        messages += [Message("user", f"{MAP_INTRO}\n\n{repo_map}"), Message("assistant", "Ok.")]
    if read_only:
        shown = "\n\n".join(fenced(p, t) for p, t in sorted(read_only.items()))
        messages += [Message("user", f"{READ_ONLY_INTRO}\n\n{shown}"), Message("assistant", "Ok.")]
    if files:
        shown = "\n\n".join(fenced(p, t) for p, t in sorted(files.items()))
        messages += [Message("user", f"{FILES_INTRO}\n\n{shown}"), Message("assistant", "Ok.")]
    messages += recent(history, history_budget)
    messages.append(Message("user", user))
    return tuple(messages)
