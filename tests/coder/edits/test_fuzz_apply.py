"""Fuzzing `coder --apply` in every edit format with hostile replies built by hypothesis.

Whatever the reply: no exception escapes (the exit status is a documented one), no file that
exists outside the chat changes, nothing is written outside the repository, no file that
steers coder or git appears, and the run stays under a time bound. A longer run:

    pytest tests/coder/edits/test_fuzz_apply.py --hypothesis-profile=long
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coder import exits
from coder.chat import offline
from coder.terminal import Terminal

SECONDS = 5.0
"""The longest one run may take (the replies are small; any super-linear path shows up)."""

NAMES = [
    "a.py",
    "src/b.py",
    "new.py",
    "src/new/b.py",
    "other.py",
    ".env",
    ".coder.conf.yml",
    ".envrc",
    ".gitattributes",
    ".git/config",
    ".GIT/hooks/pre-commit",
    "../outside.py",
    "/etc/passwd",
    "~/home.py",
    "C:\\x\\a.py",
    "link.py",
    "a.py/.",
    "x" * 300 + ".py",
    "\x1b[31ma.py",
    "sub/../../escape.py",
    "",
]
LINES = ["x = 1", "y = 2", "", "    x = 1", "\tz = 3", "é = '中'", "def f():", "    return 1"]
PIECES = [
    "<<<<<<< SEARCH",
    "<<<<<<< ORIGINAL",
    "=======",
    ">>>>>>> REPLACE",
    ">>>>>>> UPDATED",
    "```",
    "````",
    "```python",
    "~~~",
    "   ~~~",
    "<source>python",
    "</source>",
    "<think>",
    "</think>",
    "--- a.py",
    "+++ a.py",
    "--- /dev/null",
    "@@ -1,3 +1,3 @@",
    "@@ ... @@",
    "-x = 1",
    "+x = 2",
    " y = 2",
    "...",
    "# ... rest of code ...",
    "\r",
    *LINES,
    *NAMES,
]

text_replies = st.lists(st.sampled_from(PIECES) | st.text(max_size=30), max_size=60).map("\n".join)
_lines = st.lists(st.sampled_from(LINES), max_size=4)
_values = st.one_of(
    st.sampled_from(NAMES), st.text(max_size=20), _lines, st.none(), st.integers(), st.booleans()
)
_edit = st.fixed_dictionaries(
    {},
    optional={
        "path": st.sampled_from(NAMES) | _values,
        "original_lines": _lines | _values,
        "updated_lines": _lines | _values,
        "content": st.sampled_from(["x = 2\n", ""]) | _values,
    },
)
_arguments = st.fixed_dictionaries(
    {},
    optional={
        "explanation": st.text(max_size=10) | st.none(),
        "edits": st.lists(_edit, max_size=3) | _values,
        "files": st.lists(_edit, max_size=3) | _values,
    },
)
call_replies = st.one_of(
    _arguments.map(json.dumps),
    st.lists(
        st.fixed_dictionaries(
            {
                "function": st.fixed_dictionaries(
                    {
                        "name": st.sampled_from(["write_file", "replace_lines", "other"]),
                        "arguments": _arguments.map(json.dumps) | st.text(max_size=20),
                    }
                )
            }
        ),
        max_size=3,
    ).map(lambda calls: json.dumps({"tool_calls": calls})),
    text_replies,
)

BEFORE = {"a.py": "x = 1\ny = 2\n", "src/b.py": "def f():\n    return 1\n", "other.py": "o\n"}
CHAT = ("a.py", "src/b.py", "new.py")


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _run(fmt: str, reply: str, yes: bool) -> None:
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        root = base / "repo"
        root.mkdir()
        (base / "outside.py").write_text("outside\n")
        for rel, text in BEFORE.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        (root / "link.py").symlink_to("other.py")
        (base / "reply.md").write_text(reply, encoding="utf-8", errors="surrogatepass")
        options = offline.ApplyOptions(base / "reply.md", fmt, CHAT, yes=yes, auto_commits=False)
        here = os.getcwd()
        os.chdir(root)
        began = time.perf_counter()
        try:
            status = offline.run(options, Terminal(out=io.StringIO(), err=io.StringIO()))
        finally:
            os.chdir(here)
        assert time.perf_counter() - began < SECONDS
        assert status in (exits.OK, exits.FAILED)
        after = _tree(root)
        for rel in BEFORE.keys() - set(CHAT):
            assert after[rel] == BEFORE[rel].encode(), rel
        for rel in after:
            name = rel.rsplit("/", 1)[-1]
            assert not name.startswith((".env", ".coder.", ".git")), rel
        assert sorted(p.name for p in base.iterdir()) == ["outside.py", "reply.md", "repo"]
        assert (base / "outside.py").read_text() == "outside\n"
        assert not (root / "~").exists()


_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("fmt", ["whole", "diff", "udiff"])
@_SETTINGS
@given(reply=text_replies, yes=st.booleans())
def test_text_formats_never_crash_or_write_where_they_may_not(fmt, reply, yes) -> None:
    _run(fmt, reply, yes)


@pytest.mark.parametrize("fmt", ["whole-func", "diff-func"])
@_SETTINGS
@given(reply=call_replies, yes=st.booleans())
def test_function_formats_never_crash_or_write_where_they_may_not(fmt, reply, yes) -> None:
    _run(fmt, reply, yes)
