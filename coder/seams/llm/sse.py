"""What an OpenAI-compatible server sends back, read: a stream of server-sent events (or a
whole answer) into an answer, and an error response or error event into a failure."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

from coder.seams.llm import failures, wire
from coder.seams.llm.failures import Failure

MAX_ERROR_BODY = 65_536
"""Bytes of an error response read for its message."""
_CONTEXT_WORDS = (
    "context length",
    "context window",
    "maximum context",
    "too many tokens",
    "prompt is too long",
)
"""Words of a 400 that says the conversation is too long (as litellm reads them; the last is
Anthropic's)."""
_ERROR_TYPES = {
    "authentication_error": "auth",
    "permission_error": "auth",
    "not_found_error": "not-found",
    "rate_limit_error": "rate-limit",
    "overloaded_error": "server",
    "api_error": "server",
    "invalid_request_error": "bad-request",
}
"""The kinds of Anthropic's error types, for an error event (which has no HTTP status)."""


class Failed(Exception):
    """An attempt failed in a way the server told (an HTTP error, an error event, a reply that
    cannot be read)."""

    def __init__(self, failure: Failure):
        super().__init__(failure.detail)
        self.failure = failure


def read(response: http.client.HTTPResponse, answer: wire.Assembly) -> None:
    """Read a successful response into answer: a stream of events, or a whole answer from a
    server that does not stream."""
    if response.getheader("content-type", "").startswith("application/json"):
        _take(loads(response.read()), answer, whole=True)
        return
    for event in events(response):
        _take(event, answer)


def events(response) -> Iterator[dict]:
    """The JSON objects of a server-sent event stream, up to `data: [DONE]` or its end.
    Failed on an event that is not a JSON object or carries an error, and on a reply that is
    not a stream of events (a web page, say)."""
    data: list[str] = []
    seen = False
    for raw in _lines(response):
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
            seen = True
            continue
        if line or not data:
            continue  # a comment (": keep-alive"), an event name or id, or a stray blank line
        payload, data = "\n".join(data), []
        if payload.strip() == "[DONE]":
            return
        yield loads(payload.encode())
    kind = response.getheader("content-type") or "no content type"
    if not seen and not kind.startswith("text/event-stream"):
        # An empty stream is an empty answer, as litellm takes it (llama.cpp's server sends
        # one when it cannot follow a tool's schema); a web page is no answer at all.
        raise Failed(Failure("bad-reply", f"a {kind} reply, without server-sent events"))
    payload = "\n".join(data).strip()
    if payload and payload != "[DONE]":
        # An event the body ended in before its blank line: whole, it counts; cut, the
        # stream broke off (and is retried when nothing had streamed in).
        try:
            json.loads(payload)
        except ValueError:
            raise Failed(Failure("connection", "the stream ended inside an event")) from None
        yield loads(payload.encode())


def _lines(response: http.client.HTTPResponse) -> Iterator[bytes]:
    """The lines of a body as they arrive, without their line feeds. IncompleteRead when the
    connection closes before the body's end (which readline() would take for its end)."""
    parts: list[bytes] = []
    while block := response.read1(65_536):
        lines = block.split(b"\n")
        parts.append(lines[0])
        if len(lines) > 1:
            yield b"".join(parts)
            yield from lines[1:-1]
            parts = [lines[-1]]
    if response.length:  # a body of known length, cut short
        raise http.client.IncompleteRead(b"", response.length)
    if any(parts):
        yield b"".join(parts)


def loads(payload: bytes) -> dict:
    """A JSON object sent by the server; Failed when it is not one or carries an error."""
    try:
        chunk = json.loads(payload)
    except ValueError:
        text = payload[:80].decode("utf-8", errors="replace")
        raise Failed(Failure("bad-reply", f"not JSON: {text!r}")) from None
    if not isinstance(chunk, dict):
        raise Failed(Failure("bad-reply", f"not a JSON object: {str(chunk)[:80]!r}"))
    if chunk.get("error"):
        raise Failed(_error_failure(chunk, status=None))
    return chunk


def _take(chunk: dict, answer: wire.Assembly, whole: bool = False) -> None:
    """Add a streamed chunk (or a whole answer, for a server that does not stream) to answer."""
    try:
        usage = chunk.get("usage")
        if usage:
            answer.tokens = (usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0)
        for choice in (chunk.get("choices") or [])[:1]:
            answer.ended(choice.get("finish_reason"))
            delta = choice.get("message" if whole else "delta") or {}
            content = delta.get("content")
            if content is not None and not isinstance(content, str):
                raise TypeError(f"content is {type(content).__name__}")
            answer.text(content)
            for position, call in enumerate(delta.get("tool_calls") or []):
                function = call.get("function") or {}
                index = position if whole else call.get("index")
                answer.call(index, call.get("id"), function.get("name"), function.get("arguments"))
    except (AttributeError, TypeError) as exc:
        raise Failed(Failure("bad-reply", f"a chunk coder cannot read: {exc}")) from None


def status_failure(response: http.client.HTTPResponse) -> Failure:
    """What an HTTP error response says."""
    text = response.read(MAX_ERROR_BODY)
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    status = response.status
    if status < 400:  # a redirect, which a client of an API should not follow blindly
        where = response.getheader("location", "nowhere")
        body = {"error": {"message": f"HTTP {status} {response.reason}, to {where}"}}
    elif not isinstance(body, dict):
        plain = text.decode("utf-8", errors="replace").strip() or response.reason
        body = {"error": {"message": plain}}
    failure = _error_failure(body, status)
    asked = failures.retry_after(response.headers)
    return Failure(failure.kind, failure.detail, asked)


def _error_failure(body: dict, status: int | None) -> Failure:
    """The failure an error body ({"error": {"message", "type", "code"}} or a looser shape)
    describes; status is the HTTP status (None for an error event inside a stream)."""
    error = body.get("error")
    if not isinstance(error, dict):
        error = {"message": error if isinstance(error, str) else body.get("detail") or body}
    message = str(error.get("message") or error.get("type") or error)
    code = str(error.get("code") or error.get("type") or "")
    status = status or _int(error.get("status")) or _int(error.get("code"))
    detail = failures.first_line(message, f"HTTP {status}")
    return Failure(_kind(status, code, message), detail)


def _kind(status: int | None, code: str, message: str) -> str:
    lowered = message.lower()
    if code == "context_length_exceeded" or any(w in lowered for w in _CONTEXT_WORDS):
        return "context"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not-found"
    if status == 408:
        return "timeout"
    if status == 429 or "rate_limit" in code:
        return "rate-limit"
    if status is None and code in _ERROR_TYPES:
        return _ERROR_TYPES[code]
    if status is None or status >= 500:
        return "server"
    return "bad-request" if status >= 400 else "other"


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
