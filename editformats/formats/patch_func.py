"""The `patch-func` format: the function-call twin of `patch`, in the shape Codex gives OpenAI's
models: one tool, apply_patch, whose one string argument, input, is the whole V4A patch."""

from __future__ import annotations

from editformats.applying import patching
from editformats.edit import Edit, EditFormat, Reply
from editformats.errors import ReplyError
from editformats.formats import examples
from editformats.formats.patch import GUIDE
from editformats.reading import toolcalls, v4a

FUNCTION = "apply_patch"

TOOL = {
    "type": "function",
    "function": {
        "name": FUNCTION,
        "description": "Edit, add, delete or rename files with a patch in the V4A format.",
        "parameters": {
            "type": "object",
            "properties": {
                "input": {
                    "type": "string",
                    "description": "The whole patch, from *** Begin Patch to *** End Patch.",
                },
            },
            "required": ["input"],
            "additionalProperties": False,
        },
    },
}

SYSTEM_PROMPT = f"""\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Make every change by calling {FUNCTION}() with one argument, input: a patch in the V4A
format. This one changes a method, adds a file, deletes one, and renames and edits another:

{GUIDE}"""

EXAMPLE = examples.call_reply(
    FUNCTION,
    {
        "input": "*** Begin Patch\n*** Update File: hello.py\n@@\n-def greet():\n"
        '-    print("Hello, world")\n+def greet(name):\n+    print(f"Hello, {name}")\n \n'
        '-greet()\n+greet("world")\n*** End of File\n*** End Patch\n'
    },
)


def parse(reply: Reply) -> list[Edit]:
    """The file operations of the patch of every apply_patch call, as one patch: a call whose
    input is missing or holds no patch is refused, and with it the reply."""
    edits: list[Edit] = []
    for call, args in enumerate(toolcalls.arguments(reply, FUNCTION)):
        toolcalls.require(args, ("input",), FUNCTION, "the call")
        patch = args["input"]
        if not isinstance(patch, str):
            raise ReplyError(f"{FUNCTION}(): 'input' must be a string: the whole patch.")
        found = v4a.parse(patch, call=call, first=len(edits) + 1)
        if not found:
            raise ReplyError(
                f"{FUNCTION}(): 'input' holds no patch. It must run from a *** Begin Patch line"
                " to an *** End Patch line. Nothing of this reply was applied."
            )
        edits.extend(found)
    return edits


FORMAT = EditFormat("patch-func", SYSTEM_PROMPT, EXAMPLE, parse, patching.apply, TOOL)
