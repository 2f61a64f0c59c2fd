"""A block whose text is gone counts as already made only where that text would have stood."""

from __future__ import annotations

from editformats.applying import already, matching

EVENTS = [
    "def on_open(event):",
    "    if event is None or event.closed or not event.ok:",
    "        return None",
    "    handle(event)",
    "",
    "def on_close(event):",
    "    if not event.ok:",
    "        raise EventError(event)",
    "    handle(event)",
]
SEARCH = ["    if not event.ok:", "        return None", "    handle(event)"]
REPLACE = ["    if not event.ok:", "        raise EventError(event)", "    handle(event)"]


def test_the_message_names_where_the_replacement_stands() -> None:
    assert already.elsewhere(2, "a.py", already.Elsewhere(4, 7)) == (
        " Its UPDATED text already stands in a.py, at lines 5-7. If block 2 is meant to change"
        " those lines, the change is made already: leave the block out. If not, copy the"
        " ORIGINAL lines exactly as they stand in the file now."
    )
    assert "at line 5." in already.elsewhere(2, "a.py", already.Elsewhere(4, 5))


def test_a_replacement_in_another_function_is_elsewhere() -> None:
    judged = already.judge(matching.Lines(EVENTS), SEARCH, REPLACE)
    assert judged == already.Elsewhere(6, 9)


def test_a_replacement_where_the_text_stood_is_the_change_made() -> None:
    lines = EVENTS[:5] + ["def on_close(event):", "    pass"]
    lines[1:3] = ["    if not event.ok:", "        raise EventError(event)"]
    judged = already.judge(matching.Lines(lines), SEARCH, REPLACE)
    assert isinstance(judged, matching.Found) and judged.how == "already-present"
    assert (judged.start, judged.end) == (1, 4)


def test_a_line_the_block_removes_standing_elsewhere_is_doubt_enough() -> None:
    lines = [*REPLACE, "", "def other():", "        return None"]
    assert already.judge(matching.Lines(lines), SEARCH, REPLACE) == already.Elsewhere(0, 3)


def test_a_replacement_that_adds_no_line_says_nothing() -> None:
    lines = ["x = 1", "y = 2"]
    assert already.judge(matching.Lines(lines), ["y = 2", "x = 1"], ["x = 1"]) is None


def test_a_text_too_long_to_score_is_never_taken_for_the_change_made() -> None:
    search = [f"line {n}" for n in range(300)]
    replace = [*search[:-1], "changed"]
    assert already.judge(matching.Lines(replace), search, replace) == already.Elsewhere(0, 300)
