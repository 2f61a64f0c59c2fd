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
