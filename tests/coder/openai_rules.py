"""The request rules of OpenAI's chat completions API that coder relies on, checked the way the
API checks them, so that a fake server built on them rejects what the real one rejects.

Each rule gives the HTTP status and the error body the API sends: {"error": {"message", "type",
"param", "code"}}. The messages are OpenAI's own, as its API returns them (collected from
reports of real 400 responses); rules without a public message of their own use the same shape.
"""

from __future__ import annotations

import re

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class Rejected(Exception):
    """The request breaks a rule: status and error body as the API would send them."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status = 400
        self.body = {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": param,
                "code": code,
            }
        }


def check(body: dict) -> None:
    """Rejected when the request body breaks a rule; silence when it is valid."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise Rejected("you must provide a model parameter", "model", "missing_required_parameter")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Rejected(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an"
            " empty array instead.",
            "messages",
            "empty_array",
        )
    for i, message in enumerate(messages):
        _check_message(i, message)
    _check_tool_order(messages)
    _check_tools(body)
    _check_options(body)


def _check_message(i: int, message: object) -> None:
    if not isinstance(message, dict):
        raise Rejected(
            f"Invalid type for 'messages[{i}]': expected an object, but got something else.",
            f"messages[{i}]",
            "invalid_type",
        )
    role = message.get("role")
    if role not in ROLES:
        supported = ", ".join(f"'{r}'" for r in ROLES[:-1]) + f", and '{ROLES[-1]}'"
        raise Rejected(
            f"Invalid value: '{role}'. Supported values are: {supported}.",
            f"messages[{i}].role",
            "invalid_value",
        )
    content = message.get("content")
    if role == "assistant" and message.get("tool_calls"):
        _check_calls(i, message["tool_calls"])
        if content is not None and not isinstance(content, str | list):
            raise _bad_type(f"messages[{i}].content", "a string", content)
        return
    if "content" not in message or content is None:
        raise Rejected(
            f"Missing required parameter: 'messages[{i}].content'.",
            f"messages[{i}].content",
            "missing_required_parameter",
        )
    if not isinstance(content, str | list):
        raise _bad_type(f"messages[{i}].content", "a string", content)
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        raise Rejected(
            f"Missing required parameter: 'messages[{i}].tool_call_id'.",
            f"messages[{i}].tool_call_id",
            "missing_required_parameter",
        )
    if role == "function" and not isinstance(message.get("name"), str):
        raise Rejected(
            f"Missing required parameter: 'messages[{i}].name'.",
            f"messages[{i}].name",
            "missing_required_parameter",
        )


def _check_calls(i: int, calls: object) -> None:
    if not isinstance(calls, list):
        raise _bad_type(f"messages[{i}].tool_calls", "an array", calls)
    seen = set()
    for j, call in enumerate(calls):
        where = f"messages[{i}].tool_calls[{j}]"
        if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not call["id"]:
            raise Rejected(
                f"Missing required parameter: '{where}.id'.",
                f"{where}.id",
                "missing_required_parameter",
            )
        if call["id"] in seen:
            raise Rejected(
                f"Invalid parameter: duplicate tool call id '{call['id']}' in '{where}.id'.",
                f"{where}.id",
                "invalid_value",
            )
        seen.add(call["id"])
        if call.get("type") != "function":
            raise Rejected(
                f"Invalid value: '{call.get('type')}'. Supported values are: 'function'.",
                f"{where}.type",
                "invalid_value",
            )
        function = call.get("function")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise Rejected(
                f"Missing required parameter: '{where}.function.name'.",
                f"{where}.function.name",
                "missing_required_parameter",
            )
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            raise _bad_type(f"{where}.function.arguments", "a string", arguments)


def _check_tool_order(messages: list[dict]) -> None:
    """Every call is answered by a tool message naming its id, right after the assistant
    message that made it, before any other message; a tool message answers such a call."""
    waiting: list[str] = []
    answerable: set[str] = set()
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            if not answerable:
                raise Rejected(
                    "Invalid parameter: messages with role 'tool' must be a response to a"
                    " preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            call_id = message["tool_call_id"]
            if call_id not in answerable:
                raise Rejected(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls'"
                    " of previous message.",
                    f"messages.[{i}].tool_call_id",
                )
            if call_id in waiting:
                waiting.remove(call_id)
            continue
        if waiting:
            raise _unanswered(waiting, i)
        answerable = set()
        if role == "assistant" and message.get("tool_calls"):
            waiting = [call["id"] for call in message["tool_calls"]]
            answerable = set(waiting)
    if waiting:
        raise _unanswered(waiting, len(messages))


def _unanswered(waiting: list[str], i: int) -> Rejected:
    return Rejected(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to"
        " each 'tool_call_id'. The following tool_call_ids did not have response messages:"
        f" {', '.join(waiting)}",
        f"messages.[{i}].role",
    )


def _check_tools(body: dict) -> None:
    tools = body.get("tools")
    names = set()
    if tools is not None:
        if not isinstance(tools, list) or not tools:
            raise Rejected(
                "Invalid 'tools': empty array. Expected an array with minimum length 1, but got"
                " an empty array instead.",
                "tools",
                "empty_array",
            )
        for k, item in enumerate(tools):
            function = item.get("function") if isinstance(item, dict) else None
            if not isinstance(item, dict) or item.get("type") != "function" or not function:
                raise Rejected(
                    f"Missing required parameter: 'tools[{k}].function'.",
                    f"tools[{k}].function",
                    "missing_required_parameter",
                )
            name = function.get("name")
            if not isinstance(name, str) or not _NAME.match(name):
                raise Rejected(
                    f"Invalid 'tools[{k}].function.name': string does not match pattern."
                    " Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                    f"tools[{k}].function.name",
                    "invalid_value",
                )
            names.add(name)
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not names:
        raise Rejected(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are"
            " specified.",
            "tool_choice",
        )
    if isinstance(choice, str):
        if choice not in ("none", "auto", "required"):
            raise Rejected(
                f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and 'required'.",
                "tool_choice",
                "invalid_value",
            )
        return
    name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
    if name not in names:
        raise Rejected(
            f"Invalid value for 'tool_choice': function '{name}' was not found in 'tools'.",
            "tool_choice",
            "invalid_value",
        )


def _check_options(body: dict) -> None:
    temperature = body.get("temperature")
    if temperature is not None and not (
        isinstance(temperature, int | float) and 0 <= temperature <= 2
    ):
        raise Rejected(
            f"Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but"
            f" got {temperature} instead.",
            "temperature",
            "decimal_above_max_value",
        )
    if "stream_options" in body and not body.get("stream"):
        raise Rejected(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
        )
    max_tokens = body.get("max_tokens")
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
        raise Rejected(
            f"Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got"
            f" {max_tokens} instead.",
            "max_tokens",
            "integer_below_min_value",
        )


def _bad_type(param: str, wanted: str, value: object) -> Rejected:
    got = {dict: "an object", list: "an array", type(None): "null"}.get(type(value), "a value")
    return Rejected(
        f"Invalid type for '{param}': expected {wanted}, but got {got} instead.",
        param,
        "invalid_type",
    )
