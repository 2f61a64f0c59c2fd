"""The table of a selection: each distinct change once, with how many candidates made it,
the invalid candidates one by one, then the choice, the rule that made it, and its reasons."""

from __future__ import annotations

from coder.terminal import Terminal
from coder.trust.selection.pipeline import Selection

COLUMNS = ["label", "votes", "temp", "asked with", "valid", "tests", "size", ""]


def show(terminal: Terminal, selection: Selection) -> None:
    """The table of candidates, then the choice and its reasoning."""
    chosen = selection.choice.label if selection.choice else None
    rows = []
    for group in selection.distinct:
        members = [c for c in selection.candidates if c.valid and c.label == group.label]
        temps = sorted({f"{c.temperature:g}" for c in members}, key=float)
        asked = sorted({c.variant or "request" for c in members})
        rows.append(
            [
                group.label,
                str(group.votes),
                ", ".join(temps),
                ", ".join(asked),
                "yes",
                group.tests.summary() if group.tests else "",
                str(group.size),
                "chosen" if group.label == chosen else "",
            ]
        )
    for c in selection.candidates:
        if not c.valid:
            asked = c.variant or "request"
            rows.append(["-", "", f"{c.temperature:g}", asked, f"no: {c.problem}", "", "", ""])
    first = [c for c in selection.candidates if c.refines is None]
    arrived = sum(c.completion is not None for c in first)
    title = f"{arrived} of {len(first)} candidates answered"
    refined = len(selection.candidates) - len(first)
    if refined:
        title += f", {refined} refined after failing the tests"
    terminal.table(title, COLUMNS, rows)
    choice = selection.choice
    if choice is None:
        terminal.error("No candidate is valid.")
        return
    if choice.rule == "fallback":
        how = f"fallback: {choice.fallback}"
    elif choice.rule == "selector" and choice.confidence is not None:
        how = f"selector, confidence {choice.confidence:.2f}"
    else:
        how = choice.rule
    terminal.say(f"Chose {choice.label} ({how}): {choice.reasoning}")
    others = [c.label for c in selection.distinct if c.label != choice.label]
    if others:
        terminal.say(f"/pick {' or /pick '.join(others)} applies another instead.")
