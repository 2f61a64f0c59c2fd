"""Which of several places a block means: only what the reply's other blocks settle."""

from __future__ import annotations

from editformats import Edit, get_format
from editformats.applying.document import Document
from editformats.applying.state import State
from editformats.paths import NO_TREE

DIFF = get_format("diff")


def block(original: str, updated: str) -> Edit:
    return Edit("a.py", original + "\n", updated + "\n")


def test_the_next_block_bounds_the_place_and_the_user_is_told() -> None:
    text = "def f():\n    x = 1\n    return x\n\ndef g():\n    x = 1\n    return -x\n"
    result = DIFF.apply(
        [block("    x = 1", "    x = 2"), block("    return x", "    return 2 * x")], {"a.py": text}
    )
    assert result.files["a.py"].startswith("def f():\n    x = 2\n    return 2 * x\n")
    assert result.files["a.py"].endswith("def g():\n    x = 1\n    return -x\n")
    assert result.applied[0].note == (
        "its text is in 2 places; the only one before the next block's lines (line 3) was edited"
    )


def test_a_cut_short_list_of_places_settles_nothing() -> None:
    # 25 places; only the first 20 are listed, and of those only one comes after the previous
    # block's change: five more that are not listed do too.
    text = "x = 1\n" * 19 + "mark\n" + "x = 1\n" * 6
    edits = [block("mark", "MARK"), block("x = 1", "x = 2")]
    result = DIFF.apply(edits, {"a.py": text})
    assert result.failures and result.failures[0].kind == "ambiguous"


def test_where_a_line_of_the_file_as_found_stands_now() -> None:
    state = State({"a.py": Document.of("a\nb\nc\nd\ne\n")}, frozenset({"a.py"}), NO_TREE, False)
    state.moved("a.py", 0, 1, 3)  # line 0 became three lines
    state.moved("a.py", 5, 5, 2)  # two lines inserted before the old line 3
    assert state.now_at("a.py", 2, 3) == 4
    assert state.now_at("a.py", 3, 4) == 7
    assert state.now_at("a.py", 0, 2) is None  # its first line was replaced
    state.rewrote("a.py")
    assert state.now_at("a.py", 3, 4) is None
