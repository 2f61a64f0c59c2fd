"""The `udiff` format: unified diffs (--- / +++ headers, @@ hunks) whose line numbers are ignored;
each hunk is applied as a search/replace of its context and removed lines."""

from __future__ import annotations

import re
from collections.abc import Mapping

from editformats import paths
from editformats.applying import applier
from editformats.edit import ApplyResult, Edit, EditFormat, Reply, check_count
from editformats.errors import truncated
from editformats.formats import examples
from editformats.reading import fences, mixed

SYSTEM_PROMPT = """\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Describe the change in a sentence or two, then write it as a unified diff in a ```diff fence:

```diff
--- the/file/path.py
+++ the/file/path.py
@@ ... @@
 a context line, copied exactly (note the leading space)
-a line to remove
+a line to add
```

Rules:
- Start each file with its --- and +++ lines, using the path exactly as the user gave it.
- Begin each hunk with "@@ ... @@"; line numbers are not needed.
- Copy context and removed lines exactly, indentation included, so that each hunk matches
  one place in the file. Rewrite whole functions or blocks rather than single scattered lines.
- Never write placeholders such as "... rest of code ...".
- To create a file, use "--- /dev/null" and only + lines.
"""

EXAMPLE = examples.text_reply(
    '```diff\n--- hello.py\n+++ hello.py\n@@ ... @@\n-def greet():\n-    print("Hello, world")\n'
    '+def greet(name):\n+    print(f"Hello, {name}")\n \n-greet()\n+greet("world")\n```'
)

_MINUS = re.compile(r"^-{3}\s+(.*)$")
_PLUS = re.compile(r"^\+{3}\s+(.*)$")
_HUNK = re.compile(r"^@@.*@@.*$|^@@\s*$")
_COUNTS = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


SYNTAX = mixed.Syntax(
    "udiff", "unified diff hunk", "in a unified diff (--- and +++ lines, then @@ hunks)"
)


def parse(reply: Reply) -> list[Edit]:
    """One edit per hunk of every file diff in the reply.

    A diff in a fence that the reply never closes, or an unfenced last hunk shorter than its
    header says, was cut off (TruncatedReply). A reply that holds a V4A patch besides is a
    ReplyError (no line of a hunk starts with '*').
    """
    lines = fences.prepare(reply.text).split("\n")
    edits = _hunks(lines)
    if mixed.may_hold_patch(reply.text):
        mixed.refuse(SYNTAX, mixed.patches(lines), edits)
    return edits


def _hunks(lines: list[str]) -> list[Edit]:
    """One edit per hunk of every file diff in the reply's lines."""
    edits: list[Edit] = []
    path, created, hunk, start = "", False, None, 0
    fence = ""
    fence_line = 0

    def close() -> None:
        if hunk is not None and path and any(h[:1] in "+-" for h in hunk if h):
            original, updated = _sides(hunk)
            insert_at = None
            if created:
                original = ""
            elif not original.strip():
                insert_at = _insertion_line(lines[start])
            check_count(len(edits) + 1)
            edits.append(
                Edit(
                    path,
                    original,
                    updated,
                    index=len(edits) + 1,
                    line=start + 1,
                    new_file=created,
                    insert_at=insert_at,
                )
            )

    for i, line in enumerate(lines):
        header = _MINUS.match(line) if line.startswith("---") else None
        if header and i + 1 < len(lines) and _PLUS.match(lines[i + 1]):
            close()
            path, created = _header_path(lines[i + 1], header.group(1))
            hunk, start = None, i
            continue
        if line.startswith("+++") and i and _MINUS.match(lines[i - 1]) and _PLUS.match(line):
            hunk = []
            continue
        # Inside a hunk a context line such as ' ```' is the file's, so only column 0 closes.
        closes = fence or ("```" if hunk is not None else "")
        if closes and fences.is_closer(line, closes, strict=hunk is not None):
            close()
            path, hunk, fence = "", None, ""
            continue
        if not fence and hunk is None and (found := fences.opener(line)):
            fence, fence_line = found[0], i
            continue
        if not path:
            continue
        if line.startswith("@@") and _HUNK.match(line):
            close()
            hunk, start = [], i
        elif hunk is not None:
            hunk.append(line)
    if fence:
        raise truncated(f"the fence opened at line {fence_line + 1}")
    if hunk is not None and path and _short(lines[start], hunk):
        raise truncated(f"the hunk at line {start + 1}, shorter than its @@ line says")
    close()
    return edits


def _insertion_line(header: str) -> int:
    """Where a hunk with only added lines goes (from 0), from its header's new side, which
    counts the lines earlier hunks added and removed: '@@ -12,0 +13,2 @@' puts its first line
    at line 13. From the old side when the new one is missing; -1 when neither is given."""
    new = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)", header)
    if new:
        return max(0, int(new.group(1)) - 1)
    old = re.match(r"^@@ -(\d+)", header)
    return int(old.group(1)) if old else -1


def _short(header: str, hunk: list[str]) -> bool:
    """True when a hunk has fewer lines than the counts in its @@ header."""
    counts = _COUNTS.match(header)
    if counts is None:
        return False
    while hunk and not hunk[-1].strip():
        hunk = hunk[:-1]
    old = sum(1 for h in hunk if not h.startswith(("+", "\\")))
    new = sum(1 for h in hunk if not h.startswith(("-", "\\")))
    want_old = int(counts.group(1) or 1)
    want_new = int(counts.group(2) or 1)
    return old < want_old and new < want_new


def _header_path(plus_line: str, minus_path: str) -> tuple[str, bool]:
    """The file a diff changes, and whether it is created (--- /dev/null)."""
    plus = _PLUS.match(plus_line).group(1).split("\t")[0].strip()
    minus = minus_path.split("\t")[0].strip()
    created = minus == "/dev/null"
    path = minus if plus == "/dev/null" else plus
    if path.startswith("b/") and (created or minus.startswith("a/")):
        path = path[2:]
    return path, created


def _sides(hunk: list[str]) -> tuple[str, str]:
    """The hunk's text before (context and - lines) and after (context and + lines)."""
    while hunk and not hunk[-1].strip():
        hunk = hunk[:-1]
    before, after = [], []
    for line in hunk:
        if line.startswith("\\"):
            continue
        mark, body = (line[0], line[1:]) if line and line[0] in " +-" else (" ", line)
        if mark != "+":
            before.append(body)
        if mark != "-":
            after.append(body)
    return "".join(b + "\n" for b in before), "".join(a + "\n" for a in after)


def apply(
    edits: list[Edit], files: Mapping[str, str], tree: paths.Tree = paths.NO_TREE
) -> ApplyResult:
    """Apply the hunks, each split into its separate changes when it does not match whole."""
    return applier.apply(edits, files, split=True, tree=tree)


FORMAT = EditFormat("udiff", SYSTEM_PROMPT, EXAMPLE, parse, apply)
