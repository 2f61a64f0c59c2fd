"""The `diff-fenced` format: search/replace blocks with the file's path inside the fence."""

from __future__ import annotations

from editformats import applier, diff
from editformats.edit import EditFormat

SYSTEM_PROMPT = diff.SYSTEM_PROMPT.replace(
    "the/file/path.py\n```python\n", "```python\nthe/file/path.py\n"
).replace("alone on the line above the fence", "alone on the first line inside the fence")

EXAMPLE = tuple(
    (role, text.replace("hello.py\n```python\n<<<", "```python\nhello.py\n<<<"))
    for role, text in diff.EXAMPLE
)

FORMAT = EditFormat("diff-fenced", SYSTEM_PROMPT, EXAMPLE, diff.parse, applier.apply)
