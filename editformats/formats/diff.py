"""The `diff` format: search/replace blocks with ORIGINAL/UPDATED markers, each in a fence whose
first line is the file's path, as in the 2023 edit-format study (aider's "diff" of July 2023).
The parser also takes the path on the line above the fence, as later tools ask for it."""

from __future__ import annotations

from editformats.applying import applier
from editformats.edit import Edit, EditFormat, Reply
from editformats.formats import examples
from editformats.reading import editblock, fences, mixed

SYSTEM_PROMPT = """\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Describe the change in a sentence or two, then write each change as an edit block:

```python
the/file/path.py
<<<<<<< ORIGINAL
lines copied exactly from the current file
=======
the lines that replace them
>>>>>>> UPDATED
```

Rules:
- Put the file's path, exactly as the user gave it, alone on the first line inside the fence.
- ORIGINAL must be copied character for character from the file, indentation included,
  and must match only one place: add neighbouring lines when it would match several.
- Keep each block small: only the lines that change and a few around them. Use several
  blocks for several changes, in the order they appear in the file.
- Never write placeholders such as "... rest of code ..." : every line you write replaces
  the lines of ORIGINAL.
- To create a file, use an empty ORIGINAL section. To move code, use one block to delete
  it and another to insert it.
- Only edit files the user has added to the chat. If you need another file, ask for it.
"""

EXAMPLE = examples.text_reply(
    '```python\nhello.py\n<<<<<<< ORIGINAL\ndef greet():\n    print("Hello, world")\n'
    '=======\ndef greet(name):\n    print(f"Hello, {name}")\n>>>>>>> UPDATED\n```\n\n'
    '```python\nhello.py\n<<<<<<< ORIGINAL\ngreet()\n=======\ngreet("world")\n'
    ">>>>>>> UPDATED\n```"
)


SYNTAX = mixed.Syntax("diff", "search/replace block", "as a search/replace block")


def parse(reply: Reply) -> list[Edit]:
    """The edit blocks of the reply; ReplyError when it holds a V4A patch besides."""
    edits = editblock.parse_blocks(reply.text)
    if mixed.may_hold_patch(reply.text):
        lines = fences.prepare(reply.text).split("\n")
        mixed.refuse(SYNTAX, mixed.outside(mixed.patches(lines), mixed.blocks(lines)), edits)
    return edits


FORMAT = EditFormat("diff", SYSTEM_PROMPT, EXAMPLE, parse, applier.apply)
