"""The `diff-func` format: a forced call replace_lines{explanation, edits: [{path, original_lines,
updated_lines}]}, with the lines given as strings or as arrays of lines."""

from __future__ import annotations

from editformats.applying import applier
from editformats.edit import Edit, EditFormat, Reply
from editformats.errors import ReplyError
from editformats.formats import examples
from editformats.reading import toolcalls

FUNCTION = "replace_lines"

_LINES = {
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
}

TOOL = {
    "type": "function",
    "function": {
        "name": FUNCTION,
        "description": "Replace runs of lines in files with new lines.",
        "parameters": {
            "type": "object",
            "properties": {
                "explanation": {
                    "type": "string",
                    "description": "One or two sentences on what changes and why.",
                },
                "edits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string", "description": "The file's path."},
                            "original_lines": {
                                **_LINES,
                                "description": "Lines copied exactly from the file, matching"
                                " one place only; empty to create a file.",
                            },
                            "updated_lines": {
                                **_LINES,
                                "description": "The lines that replace them.",
                            },
                        },
                        "required": ["path", "original_lines", "updated_lines"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["explanation", "edits"],
            "additionalProperties": False,
        },
    },
}

SYSTEM_PROMPT = f"""\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Make every change by calling {FUNCTION}() with a short explanation and a list of edits.
Each edit names a file and gives original_lines, copied character for character from the
file (indentation included) and matching only one place, and the updated_lines that
replace them. Keep edits small: the lines that change and a few around them. Never write
placeholders such as "... rest of code ...". An empty original_lines creates a file.
Only edit files in the chat.
"""

EXAMPLE = examples.call_reply(
    FUNCTION,
    {
        "explanation": examples.EXPLANATION,
        "edits": [
            {
                "path": "hello.py",
                "original_lines": ["def greet():", '    print("Hello, world")'],
                "updated_lines": ["def greet(name):", '    print(f"Hello, {name}")'],
            },
            {
                "path": "hello.py",
                "original_lines": ["greet()"],
                "updated_lines": ['greet("world")'],
            },
        ],
    },
)


def parse(reply: Reply) -> list[Edit]:
    """One search/replace edit per entry of every replace_lines call; a call missing a
    required field is refused whole."""
    edits = []
    for call, args in enumerate(toolcalls.arguments(reply, FUNCTION)):
        toolcalls.require(args, ("explanation", "edits"), FUNCTION, "the call")
        for item in toolcalls.items(args, "edits", FUNCTION):
            toolcalls.require(item, _FIELDS, FUNCTION, f"edit {len(edits) + 1}")
            path = item["path"]
            if not isinstance(path, str) or not path.strip():
                raise ReplyError(f"{FUNCTION}(): every edit needs a 'path'.")
            original = toolcalls.text_of(item["original_lines"], "original_lines", FUNCTION)
            updated = toolcalls.text_of(item["updated_lines"], "updated_lines", FUNCTION)
            edits.append(Edit(path.strip(), original, updated, index=len(edits) + 1, call=call))
    return edits


_FIELDS = ("path", "original_lines", "updated_lines")


FORMAT = EditFormat("diff-func", SYSTEM_PROMPT, EXAMPLE, parse, applier.apply, TOOL)
