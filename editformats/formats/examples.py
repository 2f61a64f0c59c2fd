"""The one example request every edit format answers in its own way, in the system prompt's
few-shot exchange."""

from __future__ import annotations

import json

from editformats.edit import Example, ToolCall

REQUEST = Example(
    "user",
    "Make greet() take the name to greet.\n\nhello.py\n```python\ndef greet():\n"
    '    print("Hello, world")\n\ngreet()\n```',
)
"""The example request."""
EXPLANATION = "greet() gets a `name` parameter, and the call passes one."


def text_reply(text: str) -> tuple[Example, ...]:
    """The example exchange of a text format: the request, then the reply text."""
    return (REQUEST, Example("assistant", f"{EXPLANATION}\n\n{text}"))


def call_reply(function: str, arguments: dict) -> tuple[Example, ...]:
    """The example exchange of a function format: the request, the reply as a real call of
    function, and the call's answer, as a chat API requires."""
    call = ToolCall(function, json.dumps(arguments), "call_example_1")
    return (
        REQUEST,
        Example("assistant", "", (call,)),
        Example("tool", "Applied: hello.py changed.", tool_call_id=call.id),
    )
