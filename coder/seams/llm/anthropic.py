"""Anthropic's Messages API on the wire: a request's body (the system prompt as a top-level
field, user and assistant turns alternating, function calls as `tool_use` blocks answered by
`tool_result` blocks, `max_tokens` always), and its event stream read into an answer."""

from __future__ import annotations

import http.client
import json

from coder.seams.llm import sse, wire
from coder.seams.llm.failures import Failure
from coder.seams.llm.settings import ModelSettings
from coder.seams.llm.sse import Failed
from coder.seams.model import Message, Request

VERSION = "2023-06-01"
"""The anthropic-version header: the API's version coder speaks."""
DEFAULT_MAX_TOKENS = 4096
"""The reply cap sent when neither the request nor the price map gives one (the API needs one)."""
STOP_REASONS = {"max_tokens": "length", "tool_use": "tool_calls", "end_turn": "stop"}
"""Anthropic's stop reasons in OpenAI's words, as the rest of coder reads them."""


def path(base_path: str) -> str:
    """The path of the Messages endpoint under a base URL's path (as litellm and Anthropic's
    SDK read ANTHROPIC_BASE_URL: the host, to which /v1/messages is added)."""
    base_path = base_path.rstrip("/")
    return base_path if base_path.endswith("/v1/messages") else base_path + "/v1/messages"


def headers(key: str | None) -> dict[str, str]:
    """The request headers: the key in x-api-key, and the API version."""
    sent = {"Content-Type": "application/json", "User-Agent": "coder", "anthropic-version": VERSION}
    if key:
        sent["x-api-key"] = key
    return sent


def body(model: str, request: Request, settings: ModelSettings, max_output: int | None) -> dict:
    """The Messages body of request, streamed; max_output is the model's own reply limit."""
    limits = [n for n in (request.max_tokens, settings.max_tokens) if n]
    system = [
        {"type": "text", "text": m.content}
        for m in request.messages
        if m.role == "system" and m.content
    ]
    data: dict = {
        "model": model,
        "messages": turns(request.messages),
        "max_tokens": min(limits) if limits else max_output or DEFAULT_MAX_TOKENS,
        "temperature": request.temperature,
        "stream": True,
    }
    if system:
        data["system"] = system
    if request.tools:
        data["tools"] = [_tool(t["function"]) for t in request.tools]
        choice = _tool_choice(request)
        if choice is not None:
            data["tool_choice"] = choice
    return data


def turns(messages: tuple[Message, ...]) -> list[dict]:
    """The conversation as alternating user and assistant turns of content blocks: tool
    answers become tool_result blocks of a user turn, and turns of one role in a row merge."""
    merged: list[dict] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue  # the API rejects empty content
        if merged and merged[-1]["role"] == role:
            merged[-1]["content"].extend(blocks)
        else:
            merged.append({"role": role, "content": blocks})
    return merged


def _blocks(message: Message) -> list[dict]:
    if message.role == "tool":
        return [
            {"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content}
        ]
    blocks = [{"type": "text", "text": message.content}] if message.content else []
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call)})
    return blocks


def _input(call) -> dict:
    """A call's arguments as the object the API wants; arguments that are not a JSON object
    (a model's malformed call, whose answer says so) are sent as an empty one."""
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tool(function: dict) -> dict:
    schema = {"type": "object", **(function.get("parameters") or {})}
    tool = {"name": function["name"], "input_schema": schema}
    if function.get("description"):
        tool["description"] = function["description"]
    return tool


def _tool_choice(request: Request) -> dict | None:
    choice = request.tool_choice
    if choice is None:
        if len(request.tools) != 1:
            return None
        return {"type": "tool", "name": request.tools[0]["function"]["name"]}
    return {"type": {"required": "any"}.get(choice, choice)}


def read(response: http.client.HTTPResponse, answer: wire.Assembly) -> None:
    """Read a successful response into answer: Messages events, or a whole message."""
    if response.getheader("content-type", "").startswith("application/json"):
        _whole(sse.loads(response.read()), answer)
        return
    empty: set[int] = set()
    """Function calls started whose arguments have not come yet."""
    try:
        for event in sse.events(response):
            kind = event.get("type")
            if kind == "message_start":
                usage = event["message"].get("usage") or {}
                answer.tokens = (_input_tokens(usage), usage.get("output_tokens") or 0)
            elif kind == "content_block_start":
                _start(event["index"], event["content_block"], answer, empty)
            elif kind == "content_block_delta":
                _delta(event["index"], event["delta"], answer, empty)
            elif kind == "content_block_stop" and event.get("index") in empty:
                empty.discard(event["index"])
                answer.call(event["index"], None, None, "{}")
            elif kind == "message_delta":
                answer.ended(STOP_REASONS.get(event["delta"].get("stop_reason") or "", "stop"))
                output = (event.get("usage") or {}).get("output_tokens")
                if output is not None:
                    answer.tokens = ((answer.tokens or (0, 0))[0], output)
            elif kind == "message_stop":
                return
    except (AttributeError, KeyError, TypeError) as exc:
        raise Failed(Failure("bad-reply", f"an event coder cannot read: {exc!r}")) from None


def _start(index: int, block: dict, answer: wire.Assembly, empty: set[int]) -> None:
    if block["type"] == "text":
        answer.text(_text(block.get("text")))
    elif block["type"] == "tool_use":
        given = block.get("input")
        arguments = json.dumps(given) if given else ""
        answer.call(index, block["id"], block["name"], arguments)
        if not arguments:
            empty.add(index)


def _delta(index: int, delta: dict, answer: wire.Assembly, empty: set[int]) -> None:
    if delta["type"] == "text_delta":
        answer.text(_text(delta["text"]))
    elif delta["type"] == "input_json_delta":
        if delta["partial_json"]:
            empty.discard(index)
        answer.call(index, None, None, delta["partial_json"])


def _whole(message: dict, answer: wire.Assembly) -> None:
    try:
        for index, block in enumerate(message.get("content") or []):
            _start(index, block, answer, set())
            if block["type"] == "tool_use" and not block.get("input"):
                answer.call(index, None, None, "{}")
        usage = message.get("usage") or {}
        answer.tokens = (_input_tokens(usage), usage.get("output_tokens") or 0)
        answer.ended(STOP_REASONS.get(message.get("stop_reason") or "", "stop"))
    except (AttributeError, KeyError, TypeError) as exc:
        raise Failed(Failure("bad-reply", f"a message coder cannot read: {exc!r}")) from None


def _text(value) -> str:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"text is {type(value).__name__}")
    return value or ""


def _input_tokens(usage: dict) -> int:
    """Input tokens, read from the cache or written to it included (as litellm counts them)."""
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return sum(usage.get(k) or 0 for k in keys)
