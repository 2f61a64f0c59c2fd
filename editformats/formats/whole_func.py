"""The `whole-func` format: a forced call write_file{explanation, files: [{path, content}]}."""

from __future__ import annotations

from editformats.applying import applier
from editformats.edit import Edit, EditFormat, Reply
from editformats.errors import ReplyError
from editformats.formats import examples
from editformats.reading import toolcalls

FUNCTION = "write_file"

TOOL = {
    "type": "function",
    "function": {
        "name": FUNCTION,
        "description": "Write the complete new content of one or more files.",
        "parameters": {
            "type": "object",
            "properties": {
                "explanation": {
                    "type": "string",
                    "description": "One or two sentences on what changes and why.",
                },
                "files": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string", "description": "The file's path."},
                            "content": {
                                "type": "string",
                                "description": "The entire new file, every line of it.",
                            },
                        },
                        "required": ["path", "content"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["explanation", "files"],
            "additionalProperties": False,
        },
    },
}

SYSTEM_PROMPT = f"""\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Make every change by calling {FUNCTION}() with a short explanation and the complete new
content of each file you change, from its first line to its last. Never abbreviate with
comments such as "... rest of code ...": what you write replaces the file. Use the paths
exactly as the user gave them. Only write files in the chat, or new files.
"""

EXAMPLE = examples.call_reply(
    FUNCTION,
    {
        "explanation": examples.EXPLANATION,
        "files": [
            {
                "path": "hello.py",
                "content": 'def greet(name):\n    print(f"Hello, {name}")\n\ngreet("world")\n',
            }
        ],
    },
)


def parse(reply: Reply) -> list[Edit]:
    """One whole-file edit per file of every write_file call; a call missing a required field
    is refused whole."""
    edits = []
    for call, args in enumerate(toolcalls.arguments(reply, FUNCTION)):
        toolcalls.require(args, ("explanation", "files"), FUNCTION, "the call")
        for item in toolcalls.items(args, "files", FUNCTION):
            toolcalls.require(item, ("path", "content"), FUNCTION, f"file {len(edits) + 1}")
            path = item["path"]
            if not isinstance(path, str) or not path.strip():
                raise ReplyError(f"{FUNCTION}(): every file needs a 'path'.")
            content = toolcalls.text_of(item["content"], "content", FUNCTION)
            edits.append(
                Edit(path.strip(), "", content, whole=True, index=len(edits) + 1, call=call)
            )
    return edits


FORMAT = EditFormat("whole-func", SYSTEM_PROMPT, EXAMPLE, parse, applier.apply, TOOL)
