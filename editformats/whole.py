"""The `whole` format: the file's path alone on a line, then a fence with the entire new file."""

from __future__ import annotations

from editformats import applier, fences, paths
from editformats.edit import Edit, EditFormat, Reply

SYSTEM_PROMPT = """\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Describe the change in a sentence or two, then write out every file you change in full:

the/file/path.py
```python
the complete new content of the file, every line of it
```

Rules:
- Put the file's path, exactly as the user gave it, alone on the line above the fence.
- Write the whole file from its first line to its last. Never abbreviate with comments
  such as "... rest of code ..." or "existing code here": what you write replaces the file.
- Use a fence of four backticks when the file itself contains lines of three backticks.
- Only write files the user has added to the chat, or new files. If you need another
  file, ask for it.
"""

EXAMPLE = (
    (
        "user",
        "Make greet() take the name to greet.\n\nhello.py\n```python\ndef greet():\n"
        '    print("Hello, world")\n\ngreet()\n```',
    ),
    (
        "assistant",
        "greet() gets a `name` parameter, and the call passes one.\n\nhello.py\n"
        '```python\ndef greet(name):\n    print(f"Hello, {name}")\n\n'
        'greet("world")\n```',
    ),
)


def parse(reply: Reply) -> list[Edit]:
    """One whole-file edit per named fenced block, or the last unnamed block if none is named."""
    lines = fences.prepare(reply.text).split("\n")
    named: list[Edit] = []
    unnamed: list[Edit] = []
    prose_from = 0
    for fence in fences.find_fences(lines):
        body = lines[fence.start : fence.end]
        name = fences.filename_before(lines, fence.opener) or fences.info_filename(fence.info)
        if not name and body and paths.looks_like_path(paths.clean(body[0])):
            name, body = paths.clean(body[0]), body[1:]
        if not fence.closed:
            while body and not body[-1].strip():
                body.pop()
        mentions = fences.mentions("\n".join(lines[prose_from : fence.opener]))
        prose_from = fence.end + 1
        edit = Edit(
            path=name,
            original="",
            updated="".join(line + "\n" for line in body),
            whole=True,
            line=fence.opener + 1,
            mentions=mentions,
        )
        if name:
            named.append(edit)
        elif fence.info.lower() not in fences.SHELL_LANGUAGES:
            unnamed.append(edit)
    edits = named or unnamed[-1:]
    return [_numbered(edit, n) for n, edit in enumerate(edits, 1)]


def _numbered(edit: Edit, index: int) -> Edit:
    return Edit(edit.path, edit.original, edit.updated, edit.whole, index, edit.line, edit.mentions)


FORMAT = EditFormat("whole", SYSTEM_PROMPT, EXAMPLE, parse, applier.apply)
