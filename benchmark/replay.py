"""The replies a finished run recorded, played back: read from each exercise's transcript (its
`chat`), answered in order by a scripted model, so that the chat applies them again exactly as
it did; and why a run's replies cannot be played back, when they cannot."""

from __future__ import annotations

import re

from coder.seams.model import ScriptedModel
from editformats import FORMATS

SPEAKER = re.compile(r"(?:^|\n\n)\[(system|user|assistant|tool)\]\n")
"""Where a message of a transcript begins (coder.seams.model.transcript writes it so)."""


class RepliesRunOut(Exception):
    """The replay was asked for a reply the run did not record: the original exercise had
    ended there (it passed, ran out of tries, or failed)."""


def replies(chat: str) -> list[str]:
    """The assistant's messages of a transcript, in order. A reply that itself holds a line
    such as "[user]" after an empty line would be split there: no edit format writes one."""
    parts = SPEAKER.split(chat)
    return [
        text for role, text in zip(parts[1::2], parts[2::2], strict=True) if role == "assistant"
    ]


def replayed(result: dict) -> ScriptedModel:
    """A model answering with the result's recorded replies, named as the run's model, that
    raises RepliesRunOut when asked for one more (its `remaining` is then 0)."""
    ran_out = RepliesRunOut(f"the run recorded no more replies for {result['exercise']}")
    return ScriptedModel([*replies(result.get("chat", "")), ran_out], name=result["model"])


def ran_out(model: ScriptedModel) -> bool:
    """Whether the replay was asked for more than the run recorded."""
    return model.remaining == 0


def refusal(summary: dict, tries: int) -> str | None:
    """Why the run of this summary (its pass rates up to try `tries`) cannot be played back,
    or None when it can."""
    if not tries:
        return "it asked the model for no edits (--rtc-reference alone): nothing to re-score"
    fmt = summary.get("edit_format")
    if fmt not in FORMATS:
        return f"its edit format {fmt!r} is none of {', '.join(FORMATS)}"
    if FORMATS[fmt].tool:
        return (
            f"its edit format {fmt} answers with function calls, and a transcript records only"
            " their text"
        )
    if summary.get("candidates", 1) > 1:
        return "it asked for candidates, and a transcript records only the chosen one's reply"
    return None
