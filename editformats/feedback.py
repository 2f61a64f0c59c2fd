"""The messages that tell the model which of its edits failed and how to fix them."""

from __future__ import annotations

from editformats.edit import ApplyResult


def failure_message(result: ApplyResult, kept: bool) -> str:
    """What went wrong with each failed edit, and what to do with the ones that applied.

    kept says whether the edits that applied were written (and so must not be sent again) or
    dropped because another edit failed (and so must be sent again).
    """
    parts = []
    for failure in result.failures:
        text = failure.reason
        if failure.closest:
            text += f"\nDid you mean these lines of {failure.path}?\n{_fence(failure.closest)}"
        parts.append(text)
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
    parts.append("Copy the lines to find exactly from the file as it is now, whitespace included.")
    return "\n\n".join(parts)


def _numbers(indexes: list[int]) -> str:
    if len(indexes) == 1:
        return f"Block {indexes[0]}"
    return "Blocks " + ", ".join(map(str, indexes[:-1])) + f" and {indexes[-1]}"


def _fence(text: str) -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}\n{text}\n{ticks}"
