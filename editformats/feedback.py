"""The messages that tell the model which of its edits failed and how to fix them.

A message stays useful at any size of reply: it explains the first MAX_SHOWN failures, counts
the others, and never grows past MAX_CHARS.
"""

from __future__ import annotations

from editformats.edit import ApplyResult, ToolCall

MAX_SHOWN = 10
"""Failures explained one by one; later ones are only counted."""
MAX_CLOSEST_LINES = 40
"""Lines of the file shown as the closest match to a failed edit."""
MAX_CHARS = 20_000
"""The longest message sent back."""
ATOMIC = (
    "Nothing of your patch was applied: it applies whole or not at all. Send the whole patch"
    " again, every file operation in it, with the failures above fixed."
)
"""What follows the failures of a format whose edits apply all or none."""


def failure_message(result: ApplyResult, kept: bool) -> str:
    """What went wrong with each failed edit, and what to do with the ones that applied.

    kept says whether the edits that applied were written (and so must not be sent again) or
    dropped because another edit failed (and so must be sent again).
    """
    parts = []
    for failure in result.failures[:MAX_SHOWN]:
        text = failure.reason
        if failure.closest:
            text += f"\nDid you mean these lines of {failure.path}?\n{_fence(failure.closest)}"
        parts.append(text)
    hidden = [f.edit.index for f in result.failures[MAX_SHOWN:]]
    if hidden:
        parts.append(f"{_numbers(hidden)} failed too, for reasons like those above.")
    applied = sorted({a.edit.index for a in result.applied if a.edit.index})
    if applied:
        numbers = _numbers(applied)
        if kept:
            parts.append(
                f"{numbers} applied and {'are' if len(applied) > 1 else 'is'} saved:"
                " do not send again."
            )
        else:
            parts.append(
                f"{numbers} would apply, but nothing was changed because of the failures above:"
                " send every block again, with the failed ones fixed."
            )
    if any(f.kind in ("not-found", "ambiguous") for f in result.failures):
        parts.append(
            "Copy the lines to find exactly from the file as it is now, whitespace included."
        )
    if result.atomic and result.failures:
        parts.append(ATOMIC)
    message = "\n\n".join(parts)
    if len(message) > MAX_CHARS:
        message = message[:MAX_CHARS] + "\n[... the rest of this message is cut ...]"
    return message


def call_answers(result: ApplyResult, calls: int, kept: bool) -> list[str]:
    """The answer to each of a reply's function calls (by position): what happened to the
    edits it made. kept says whether the edits that applied were written."""
    answers = []
    for call in range(calls):
        failed = tuple(f for f in result.failures if f.edit.call == call)
        applied = tuple(a for a in result.applied if a.edit.call == call)
        if failed:
            own = ApplyResult(result.files, applied, failed, atomic=result.atomic)
            answers.append("Failed.\n\n" + failure_message(own, kept))
        elif result.atomic and result.failures:
            answers.append(
                "Not applied: an edit of another call of this reply failed, and the reply's"
                " edits apply all or none."
            )
        elif applied:
            files = ", ".join(sorted({a.path for a in applied}))
            saved = "saved" if kept else "would apply, but nothing was saved"
            answers.append(f"Applied: the edits to {files} {saved}.")
        else:
            answers.append("This call holds no edits.")
    return answers


def next_request(calls: tuple[ToolCall, ...], problem: str, nothing_applied: bool = False) -> str:
    """What the model is asked after a reply that failed: the problem itself, or, when the
    answers to its function calls already say it, to call again with only the failed edits
    (or with all of them, when nothing of the reply was applied)."""
    if not calls:
        return problem
    if nothing_applied:
        return (
            "Your edits could not be used: the answers to your calls above say why, and nothing"
            f" of the reply was applied. Call {calls[0].name} again with all of them, fixed."
        )
    return (
        "Some of your edits could not be used: the answers to your calls above say which"
        f" and why. Call {calls[0].name} again with only those edits, fixed; the edits that"
        " applied are saved, so do not send them again."
    )


def _numbers(indexes: list[int]) -> str:
    """'Block 3', or 'Blocks 1, 4-9 and 12', with long lists shortened."""
    if len(indexes) == 1:
        return f"Block {indexes[0]}"
    runs: list[str] = []
    start = prev = indexes[0]
    for n in [*indexes[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    if len(runs) > 30:
        runs = [*runs[:30], f"{len(runs) - 30} more"]
    if len(runs) == 1:
        return f"Blocks {runs[0]}"
    return "Blocks " + ", ".join(runs[:-1]) + f" and {runs[-1]}"


def _fence(text: str) -> str:
    lines = text.split("\n")
    if len(lines) > MAX_CLOSEST_LINES:
        text = "\n".join(lines[:MAX_CLOSEST_LINES]) + "\n[...]"
    if len(text) > 4000:
        text = text[:4000] + "\n[...]"
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text}\n{ticks}"
