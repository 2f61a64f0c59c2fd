"""Property tests: no reply crashes a parser or an applier, and nothing is ever written
outside the repository."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from editformats import FORMATS, Reply, ReplyError, get_format, paths

PIECES = [
    "<<<<<<< SEARCH",
    "<<<<<<< ORIGINAL",
    "<<<<<<< HEAD",
    "=======",
    ">>>>>>> REPLACE",
    ">>>>>>> UPDATED",
    "```",
    "````",
    "```python",
    "~~~",
    "<source>",
    "</source>",
    "a.py",
    "src/b.py",
    "**a.py**",
    "# a.py",
    "a.py:",
    "../evil.py",
    ".git/config",
    "/etc/passwd",
    "C:\\x\\a.py",
    "...",
    "# ... rest of code ...",
    "--- a.py",
    "+++ a.py",
    "--- /dev/null",
    "@@ ... @@",
    "-x = 1",
    "+x = 2",
    " y = 2",
    "x = 1",
    "y = 2",
    "",
    "    x = 1",
    "\tx = 1",
    "<think>",
    "</think>",
    '{"path": "a.py"}',
    "[",
    "{",
    "é中🎉",
    "\r",
]
FILES = {"a.py": "x = 1\ny = 2\n", "src/b.py": "def f():\n    return 1\n"}

replies = st.one_of(
    st.text(max_size=400),
    st.lists(st.sampled_from(PIECES), max_size=40).map("\n".join),
)
file_texts = st.dictionaries(
    st.sampled_from(["a.py", "src/b.py", "c.txt"]),
    st.lists(st.sampled_from(["x = 1", "y = 2", "", "    x = 1", "\tz", "é"]), max_size=12).map(
        "\n".join
    ),
    max_size=3,
)


def _check(fmt_name: str, reply: Reply, files: dict[str, str]) -> None:
    fmt = get_format(fmt_name)
    try:
        edits = fmt.parse(reply)
    except ReplyError:
        return
    result = fmt.apply(edits, files)
    for path in result.files:
        assert paths.refusal(path) is None, path
    assert len(result.applied) + len(result.failures) == len(edits)


@settings(max_examples=150, deadline=None)
@given(reply=replies, files=file_texts)
def test_text_formats_never_crash_and_never_leave_the_root(reply: str, files) -> None:
    for name in ("whole", "diff", "udiff"):
        _check(name, Reply(reply), files)


@settings(max_examples=150, deadline=None)
@given(
    path=st.sampled_from(["a.py", "../x.py", ".git/HEAD", "/abs.py", "", "src\\b.py", "a.py/.."]),
    original=st.one_of(st.text(max_size=30), st.lists(st.text(max_size=10), max_size=3)),
    updated=st.one_of(st.text(max_size=30), st.lists(st.text(max_size=10), max_size=3), st.none()),
    garbage=st.text(max_size=40),
)
def test_function_formats_never_crash(path, original, updated, garbage) -> None:
    edit = {"path": path, "original_lines": original, "updated_lines": updated}
    file = {"path": path, "content": updated}
    for name, args in (("diff-func", {"edits": [edit]}), ("whole-func", {"files": [file]})):
        _check(name, Reply(json.dumps(args)), FILES)
        _check(name, Reply(garbage), FILES)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="abc xyz()=:", max_size=12), min_size=1, max_size=30),
    data=st.data(),
)
def test_a_unique_run_of_lines_is_replaced_exactly(lines: list[str], data) -> None:
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start + 1, len(lines)))
    run = lines[start:end]
    occurrences = sum(lines[i : i + len(run)] == run for i in range(len(lines)))
    if occurrences != 1 or not any(line.strip() for line in run):
        return
    new = data.draw(st.lists(st.text(alphabet="defg 123", max_size=10), max_size=5))
    text = "\n".join(lines) + "\n"
    reply = "a.py\n```\n<<<<<<< SEARCH\n" + "".join(f"{x}\n" for x in run) + "=======\n"
    reply += "".join(f"{x}\n" for x in new) + ">>>>>>> REPLACE\n```\n"
    fmt = get_format("diff")
    result = fmt.apply(fmt.parse(Reply(reply)), {"a.py": text})
    if any("=" * 5 in x or x.startswith(("<<<<<", ">>>>>", "```")) for x in run + new):
        return
    assert result.ok, result.failures
    expected = "".join(line + "\n" for line in lines[:start] + new + lines[end:])
    assert result.files.get("a.py", text) == expected


def test_registry_lists_the_seven_formats_and_their_other_names() -> None:
    assert set(FORMATS) == {
        "whole",
        "diff",
        "udiff",
        "whole-func",
        "diff-func",
        "patch",
        "patch-func",
    }
    for alias in ("diff-fenced", "editor-diff", "editor-diff-fenced"):
        assert get_format(alias) is get_format("diff")


PATCH_PIECES = [
    "*** Begin Patch",
    "*** End Patch",
    " *** End Patch ",
    "*** Add File: a.py",
    "*** Add File: new/c.py",
    "*** Delete File: a.py",
    "*** Delete File: src/b.py",
    "*** Update File: a.py",
    "*** Update File: src/b.py",
    "*** Update File: ../x.py",
    "*** Update File: /abs.py",
    "*** Move to: moved.py",
    "*** Move to: .git/config",
    "*** Move to: src/b.py",
    "*** End of File",
    "@@",
    "@@ def f():",
    "@@ -1,2 +1,2 @@",
    " x = 1",
    "-x = 1",
    "+x = 2",
    " y = 2",
    "-    return 1",
    "+    return 2",
    "",
    "   ",
    "+",
    "-",
    " ",
    "<<'EOF'",
    "EOF",
    "```",
    "prose",
    "é中🎉",
]
patch_replies = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(PATCH_PIECES), max_size=40).map("\n".join),
)


def _check_patch(fmt_name: str, reply: Reply, files: dict[str, str], tree: paths.Tree) -> None:
    fmt = get_format(fmt_name)
    try:
        edits = fmt.parse(reply)
    except ReplyError:
        return
    result = fmt.apply(edits, files, tree=tree)
    written = [*result.files, *result.deleted, *result.moved.values()]
    for path in written:
        assert paths.refusal(path) is None, path
    assert set(result.deleted) <= set(files)
    assert not set(result.deleted) & set(result.files)
    if result.failures:
        assert not result.files and not result.deleted and not result.applied
    else:
        assert len(result.applied) == len(edits)


@settings(max_examples=300, deadline=None)
@given(reply=patch_replies, files=file_texts, others=st.sets(st.sampled_from(["d.py", "src"])))
def test_patch_never_crashes_and_never_leaves_the_root(reply: str, files, others) -> None:
    tree = paths.tree_of([*files, *others])
    _check_patch("patch", Reply(reply), files, tree)
    _check_patch("patch-func", Reply(json.dumps({"input": reply})), files, tree)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["a", "b", "c = 1", "", "  d", "e e"]), min_size=1, max_size=25),
    data=st.data(),
)
def test_a_patch_chunk_changes_its_own_place_or_nothing(lines: list[str], data) -> None:
    start = data.draw(st.integers(0, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    context = data.draw(st.integers(0, 3))
    above, below = lines[max(0, start - context) : start], lines[end : end + context]
    if not above and not below and start == end:
        return  # a chunk of only added lines: it goes at the end
    new = data.draw(st.lists(st.sampled_from(["NEW", "", "  x"]), max_size=4))
    spaced = data.draw(st.booleans())
    kept = [" " + line + ("  " if spaced and line else "") for line in above + below]
    chunk = kept[: len(above)] + ["-" + line for line in lines[start:end]]
    chunk += ["+" + line for line in new] + kept[len(above) :]
    reply = "*** Begin Patch\n*** Update File: a.txt\n@@\n" + "\n".join(chunk) + "\n*** End Patch\n"
    text = "".join(line + "\n" for line in lines)
    fmt = get_format("patch")
    result = fmt.apply(fmt.parse(Reply(reply)), {"a.txt": text})
    if result.failures:
        assert result.failures[0].kind == "ambiguous", result.failures[0].reason
        return
    expected = "".join(line + "\n" for line in lines[:start] + new + lines[end:])
    assert result.files.get("a.txt", text) == expected
