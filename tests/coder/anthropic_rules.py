"""The request rules of Anthropic's Messages API that coder relies on, checked as the API checks
them, so that a fake server built on them rejects what the real one rejects.

Each rule gives the HTTP status and the error body the API sends: {"type": "error", "error":
{"type", "message"}}. Messages follow the API's own wording where it is public (from reports of
real responses); the others keep its shape.
"""

from __future__ import annotations

import re

FIELDS = {
    "model",
    "messages",
    "max_tokens",
    "system",
    "temperature",
    "stream",
    "tools",
    "tool_choice",
    "top_p",
    "top_k",
    "stop_sequences",
    "metadata",
    "thinking",
    "service_tier",
}
"""The top-level fields the API takes; any other (seed, stream_options, n) is rejected."""
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class Rejected(Exception):
    """The request breaks a rule: status and error body as the API would send them."""

    def __init__(self, message: str, status: int = 400, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status = status
        self.body = {"type": "error", "error": {"type": kind, "message": message}}


def check(body: dict, headers: dict[str, str]) -> None:
    """Rejected when the request (body, headers named in lower case) breaks a rule."""
    if not headers.get("x-api-key"):
        raise Rejected("x-api-key header is required", 401, "authentication_error")
    if not headers.get("anthropic-version"):
        raise Rejected("anthropic-version: header is required")
    for name in body:
        if name not in FIELDS:
            raise Rejected(f"{name}: Extra inputs are not permitted")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise Rejected("model: Field required")
    tokens = body.get("max_tokens")
    if tokens is None:
        raise Rejected("max_tokens: Field required")
    if not isinstance(tokens, int) or tokens < 1:
        raise Rejected("max_tokens: Input should be greater than or equal to 1")
    temperature = body.get("temperature")
    if temperature is not None and not (
        isinstance(temperature, int | float) and 0 <= temperature <= 1
    ):
        raise Rejected("temperature: Input should be less than or equal to 1")
    _check_system(body.get("system"))
    _check_tools(body)
    _check_messages(body.get("messages"))


def _check_system(system: object) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise Rejected("system: Input should be a valid list")
    for i, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            raise Rejected(f"system.{i}: Input tag does not match the expected tag 'text'")
        if not block.get("text"):
            raise Rejected("system: text content blocks must be non-empty")


def _check_tools(body: dict) -> None:
    tools = body.get("tools")
    names: set[str] = set()
    if tools is not None:
        if not isinstance(tools, list):
            raise Rejected("tools: Input should be a valid list")
        for i, tool in enumerate(tools):
            name = tool.get("name") if isinstance(tool, dict) else None
            if not isinstance(name, str) or not _NAME.match(name):
                raise Rejected(
                    f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
                )
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                raise Rejected(f"tools.{i}.custom.input_schema.type: Input should be 'object'")
            if name in names:
                raise Rejected("tools: Tool names must be unique.")
            names.add(name)
    choice = body.get("tool_choice")
    if choice is None:
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in ("auto", "any", "tool", "none"):
        raise Rejected(
            "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any',"
            " 'tool', 'none'"
        )
    if not names and kind != "none":
        raise Rejected("tool_choice may only be specified while providing tools.")
    if kind == "tool" and choice.get("name") not in names:
        raise Rejected(f"Tool '{choice.get('name')}' not found in provided tools")


def _check_messages(messages: object) -> None:
    if not isinstance(messages, list) or not messages:
        raise Rejected("messages: at least one message is required")
    waiting: list[str] = []
    """The tool_use ids of the previous assistant turn, each to be answered next."""
    seen: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise Rejected(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        if i == 0 and role != "user":
            raise Rejected('messages: first message must use the "user" role')
        if i and messages[i - 1]["role"] == role:
            raise Rejected(
                f'messages: roles must alternate between "user" and "assistant", but found'
                f' multiple "{role}" roles in a row'
            )
        blocks = _blocks(i, message, last=i == len(messages) - 1)
        answered = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        for j, block in enumerate(blocks):
            if block["type"] == "tool_result" and block["tool_use_id"] not in waiting:
                raise Rejected(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result`"
                    f" blocks: {block['tool_use_id']}. Each `tool_result` block must have a"
                    " corresponding `tool_use` block in the previous message."
                )
        missing = [w for w in waiting if w not in answered]
        if missing:
            raise Rejected(
                f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks"
                f" immediately after: {', '.join(missing)}. Each `tool_use` block must have a"
                " corresponding `tool_result` block in the next message."
            )
        waiting = []
        for j, block in enumerate(blocks):
            if block["type"] != "tool_use":
                continue
            if role != "assistant":
                raise Rejected(
                    f"messages.{i}.content.{j}: tool_use blocks may only be sent by the assistant"
                )
            if block.get("id") in seen:
                raise Rejected(f"messages.{i}.content.{j}: `tool_use` ids must be unique")
            if not isinstance(block.get("input"), dict):
                raise Rejected(
                    f"messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary"
                )
            seen.add(block["id"])
            waiting.append(block["id"])
    if waiting:
        raise Rejected(
            f"messages.{len(messages) - 1}: `tool_use` ids were found without `tool_result`"
            f" blocks immediately after: {', '.join(waiting)}. Each `tool_use` block must have a"
            " corresponding `tool_result` block in the next message."
        )


def _blocks(i: int, message: dict, last: bool) -> list[dict]:
    content = message.get("content")
    if isinstance(content, str):
        if not content and not (last and message["role"] == "assistant"):
            raise Rejected(
                f"messages.{i}: all messages must have non-empty content except for the optional"
                " final assistant message"
            )
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list) or (not content and not last):
        raise Rejected(
            f"messages.{i}: all messages must have non-empty content except for the optional"
            " final assistant message"
        )
    for j, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            if not isinstance(block.get("text"), str) or not block["text"]:
                raise Rejected("messages: text content blocks must be non-empty")
        elif kind == "tool_use":
            if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                raise Rejected(f"messages.{i}.content.{j}.tool_use.id: Field required")
        elif kind == "tool_result":
            if message["role"] != "user":
                raise Rejected(
                    f"messages.{i}.content.{j}: tool_result blocks may only be sent by the user"
                )
            if not isinstance(block.get("tool_use_id"), str):
                raise Rejected(f"messages.{i}.content.{j}.tool_result.tool_use_id: Field required")
        else:
            raise Rejected(
                f"messages.{i}.content.{j}: Input tag '{kind}' found using 'type' does not match"
                " any of the expected tags"
            )
    return content
