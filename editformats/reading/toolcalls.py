"""Reading function-call arguments from a reply: real tool calls, or their JSON as text."""

from __future__ import annotations

import json

from editformats.edit import Reply, check_count
from editformats.errors import ReplyError, TruncatedReply, truncated
from editformats.reading import fences

_MAX_FENCES = 10
"""Fenced blocks of a text reply tried as JSON; a reply holding a call has one or two."""


def arguments(reply: Reply, function: str) -> list[dict]:
    """The argument objects of every call in the reply, named function or not named at all.

    Without tool calls, the text is read as JSON: an OpenAI-style assistant message, a list of
    tool calls, one tool call, or the arguments object itself (also inside a ```json fence).
    """
    calls = [(c.name, c.arguments) for c in reply.tool_calls]
    if not calls:
        calls = _calls_in_text(reply.text, function)
    check_count(len(calls))
    found = []
    for name, args in calls:
        if name and name != function:
            raise ReplyError(
                f"You called {name[:100]}(); the only function available is {function}()."
            )
        found.append(_decode(args, function))
    return found


def _calls_in_text(text: str, function: str) -> list[tuple[str, object]]:
    stripped = text.strip()
    if not stripped:
        return []
    lines = fences.prepare(text).split("\n")
    found = fences.find_fences(lines)
    open_fence = next((f for f in found if not f.closed), None)
    if open_fence is not None and open_fence.info.lower() in ("", "json"):
        raise truncated(f"the fenced block opened at line {open_fence.opener + 1}")
    fenced = [f for f in found if f.info.lower() in ("", "json")][:_MAX_FENCES]
    candidates = [stripped] + ["\n".join(lines[f.start : f.end]) for f in fenced]
    error = None
    for candidate in candidates:
        try:
            data = _loads(candidate, function)
        except ReplyError as exc:
            error = error or exc
            continue
        return _calls_in_data(data)
    if error is not None and (stripped.startswith(("{", "[")) or len(candidates) > 1):
        raise ReplyError(f"Your call of {function}() is not valid JSON: {error}") from None
    return []


def _loads(text: str, function: str) -> object:
    """JSON text as data; ReplyError saying why it is not valid JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            raise truncated(f"the arguments of your {function}() call") from None
        raise ReplyError(f"{exc.msg} at line {exc.lineno} column {exc.colno}.") from None
    except RecursionError:
        raise ReplyError("its values are nested too deeply.") from None
    except ValueError as exc:  # e.g. an integer longer than Python converts
        raise ReplyError(f"{str(exc)[:200]}.") from None


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
            args = _loads(args, function)
        except TruncatedReply:
            raise
        except ReplyError as exc:
            raise ReplyError(
                f"The arguments of your {function}() call are not valid JSON: {exc}"
            ) from None
    if not isinstance(args, dict):
        raise ReplyError(f"The arguments of {function}() must be a JSON object.")
    return args


def require(item: dict, keys: tuple[str, ...], function: str, where: str) -> None:
    """ReplyError naming the first of keys that item lacks (a call missing a required field
    is refused whole, never applied in part)."""
    missing = [key for key in keys if key not in item or item[key] is None]
    if missing:
        raise ReplyError(
            f"{function}(): {where} lacks the required field '{missing[0]}'. Every call needs"
            f" {', '.join(repr(k) for k in keys)}. Nothing of this call was applied."
        )


def text_of(value: object, field: str, function: str) -> str:
    """A file text given as a string or as a list of lines (each of which ends with a newline,
    so that trailing blank lines stay as written), ending with a newline."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(v + "\n" for v in value)
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
