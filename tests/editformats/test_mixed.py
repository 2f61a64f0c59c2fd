"""A reply that mixes edit formats is refused whole, with a message that says what it read."""

from __future__ import annotations

import pytest

from editformats import Edit, Reply, ReplyError, get_format
from editformats.formats import diff, patch
from editformats.reading import mixed

PATCH = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
BLOCK = "b.py\n```python\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n```\n"
HUNK = "```diff\n--- b.py\n+++ b.py\n@@ ... @@\n-y = 1\n+y = 2\n```\n"
WHOLE = "b.py\n```python\ny = 2\n```\n"


def test_the_message_for_a_block_beside_a_patch() -> None:
    found = [mixed.Foreign("block", 9, ("b.py",))]
    own = [Edit("a.py", "", "")]
    assert mixed.message(patch.SYNTAX, found, own) == (
        "Your reply holds a search/replace block (line 9, for b.py), which the patch format"
        " does not read, beside 1 patch section (for a.py). Nothing of the reply was applied,"
        " so that no change is made twice or left out. Write every change as a section of one"
        " V4A patch (*** Update File: PATH and its chunks to change a file, *** Add File: PATH"
        " to create one), and send them all again in one reply."
    )


def test_the_message_counts_and_names_what_it_read() -> None:
    found = [
        mixed.Foreign("file", 12, ("c.py",)),
        mixed.Foreign("patch", 3, ("a.py", "b.py")),
        mixed.Foreign("file", 20, ("d.py",)),
    ]
    own = [Edit("x.py", "a", "b"), Edit("y.py", "a", "b")]
    text = mixed.message(diff.SYNTAX, found, own)
    assert text.startswith(
        "Your reply holds a V4A patch (line 3, for a.py, b.py) and 2 whole files (lines 12 and"
        " 20, for c.py, d.py), which the diff format does not read, beside 2 search/replace"
        " blocks (for x.py, y.py)."
    )


def test_a_reply_with_only_another_formats_edits_says_so() -> None:
    text = mixed.message(diff.SYNTAX, [mixed.Foreign("patch", 1, ("a.py",))], [])
    assert "which the diff format does not read, and no search/replace block." in text


@pytest.mark.parametrize(
    ("name", "reply"),
    [
        ("patch", f"{PATCH}\n{BLOCK}"),
        ("patch", f"{BLOCK}\n{PATCH}"),
        ("patch", f"{PATCH}\n{WHOLE}"),
        ("patch", BLOCK),
        ("diff", f"{BLOCK}\n{PATCH}"),
        ("diff", PATCH),
        ("udiff", f"{HUNK}\n{PATCH}"),
        ("whole", f"{WHOLE}\n{PATCH}"),
        ("whole", f"```\n{PATCH}```\n"),
    ],
)
def test_every_mix_is_refused(name: str, reply: str) -> None:
    with pytest.raises(ReplyError, match="does not read"):
        get_format(name).parse(Reply(reply))


@pytest.mark.parametrize(
    ("name", "reply"),
    [
        # A git conflict quoted in prose is no edit.
        ("patch", "It reads:\n```\n<<<<<<< HEAD\ny = 1\n=======\ny = 3\n>>>>>>> b\n```\n" + PATCH),
        # A patch mentioned in prose, not at the start of a line, or with no operation.
        ("diff", f"{BLOCK}\nSay `*** Begin Patch` to start one.\n*** Begin Patch\nthen text\n"),
        # A file's own text may hold a patch: in a block, or in a whole file.
        ("diff", "g.md\n```\n<<<<<<< SEARCH\nold\n=======\n" + PATCH + ">>>>>>> REPLACE\n```\n"),
        ("whole", "ex.patch\n```\n" + PATCH + "```\n"),
        # A patch in a fence is the patch, not a whole file.
        ("patch", "```diff\n" + PATCH + "```\n"),
    ],
)
def test_what_is_not_a_mix(name: str, reply: str) -> None:
    assert get_format(name).parse(Reply(reply))


def test_the_quick_looks() -> None:
    assert not mixed.may_hold_patch(BLOCK)
    assert mixed.may_hold_patch(PATCH)
    assert not mixed.may_hold_others(PATCH)
    assert mixed.may_hold_others(WHOLE)
    lines = f"{BLOCK}\n{PATCH}".split("\n")
    found = mixed.patches(lines)
    assert [(f.line, f.paths) for f in found] == [(10, ("a.py",))]
    assert mixed.outside(found, [range(8, 12)]) == []


def test_a_long_list_is_cut_short() -> None:
    found = [mixed.Foreign("patch", n, (f"f{n % 7}.py",)) for n in range(1, 30)]
    text = mixed.message(diff.SYNTAX, found, [])
    assert text.startswith(
        "Your reply holds 29 V4A patches (lines 1, 2, 3, 4, 5 and 24 more, for f1.py, f2.py,"
        " f3.py, f4.py, f5.py and 2 more), which the diff format does not read"
    )
