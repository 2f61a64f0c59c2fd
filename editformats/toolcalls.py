"""Reading function-call arguments from a reply: real tool calls, or their JSON as text."""

from __future__ import annotations

import json
import re

from editformats.edit import Reply
from editformats.errors import ReplyError

_JSON_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.DOTALL)


def arguments(reply: Reply, function: str) -> list[dict]:
    """The argument objects of every call in the reply, named function or not named at all.

    Without tool calls, the text is read as JSON: an OpenAI-style assistant message, a list of
    tool calls, one tool call, or the arguments object itself (also inside a ```json fence).
    """
    calls = [(c.name, c.arguments) for c in reply.tool_calls]
    if not calls:
        calls = _calls_in_text(reply.text, function)
    found = []
    for name, args in calls:
        if name and name != function:
            raise ReplyError(f"You called {name}(); the only function available is {function}().")
        found.append(_decode(args, function))
    return found


def _calls_in_text(text: str, function: str) -> list[tuple[str, object]]:
    stripped = text.strip()
    if not stripped:
        return []
    candidates = [stripped] + _JSON_FENCE.findall(text)
    error = None
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = error or exc
            continue
        return _calls_in_data(data)
    if stripped.startswith(("{", "[")) or _JSON_FENCE.search(text):
        raise ReplyError(f"Your call of {function}() is not valid JSON: {error}.")
    return []


def _calls_in_data(data: object) -> list[tuple[str, object]]:
    if isinstance(data, dict) and "tool_calls" in data:
        data = data["tool_calls"] or []
    items = data if isinstance(data, list) else [data]
    calls = []
    for item in items:
        if not isinstance(item, dict):
            raise ReplyError("Each function call must be a JSON object.")
        call = item.get("function", item)
        if isinstance(call, dict) and "arguments" in call:
            calls.append((str(call.get("name") or ""), call["arguments"]))
        else:
            calls.append(("", item))
    return calls


def _decode(args: object, function: str) -> dict:
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError as exc:
            raise ReplyError(
                f"The arguments of your {function}() call are not valid JSON: {exc}."
            ) from None
    if not isinstance(args, dict):
        raise ReplyError(f"The arguments of {function}() must be a JSON object.")
    return args


def text_of(value: object, field: str, function: str) -> str:
    """A file text given as a string or as a list of lines, ending with a newline."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "\n".join(value)
    if not isinstance(value, str):
        raise ReplyError(f"{function}(): '{field}' must be a string or a list of strings.")
    return value if not value or value.endswith("\n") else value + "\n"


def items(args: dict, key: str, function: str) -> list[dict]:
    """The list under key in a call's arguments, each entry an object."""
    value = args.get(key)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ReplyError(f"{function}() needs '{key}': a list of objects.")
    return value
