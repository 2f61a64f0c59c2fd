"""The direct route: chat requests over HTTP straight to an OpenAI-compatible server
(`openai/NAME` with an API base), with the standard library only, so that the first request
waits on no import. It streams, assembles function calls, retries and explains failures as the
litellm route does; prices and context windows come from litellm only when it is loaded anyway.
"""

from __future__ import annotations

import http.client
import json
import sys
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

from coder.errors import UsageError
from coder.seams.llm import failures, via_litellm, wire
from coder.seams.llm.failures import Failure
from coder.seams.llm.settings import ModelSettings, resolve
from coder.seams.model import Completion, Request

MAX_ERROR_BODY = 65_536
"""Bytes of an error response read for its message."""
_CONTEXT_WORDS = ("context length", "context window", "maximum context", "too many tokens")
"""Words of a 400 that says the conversation is too long (as litellm reads them)."""


class Failed(Exception):
    """An attempt failed in a way the server told (an HTTP error, an error event, a reply that
    cannot be read)."""

    def __init__(self, failure: Failure):
        super().__init__(failure.detail)
        self.failure = failure


class DirectModel:
    """A model behind an OpenAI-compatible server, reached without litellm."""

    def __init__(self, settings: ModelSettings, on_retry: Callable[[str], None] | None = None):
        base = urlsplit(settings.api_base or "")
        if base.scheme not in ("http", "https") or not base.hostname:
            raise UsageError(f"--api-base {settings.api_base!r} is not an http:// or https:// URL")
        self.settings = settings
        self.name = resolve(settings.name)
        self.on_retry = on_retry or (lambda message: None)
        self._base = base
        self._path = base.path.rstrip("/") + "/chat/completions"
        if base.query:
            self._path += "?" + base.query
        self._model = self.name.removeprefix("openai/")
        """The name the server knows the model by (as litellm sends it)."""

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Stream the answer to request, retrying rate limits, server errors and timeouts."""
        return failures.retrying(
            lambda streamed: self._once(request, on_text, streamed),
            _failure,
            (Failed, OSError, http.client.HTTPException),
            self.settings,
            (self.name, self.settings.api_base),
            self.on_retry,
        )

    def _once(self, request: Request, on_text, streamed: list[str]) -> Completion:
        data = json.dumps(wire.body(self._model, request, self.settings)).encode()
        answer = wire.Assembly(on_text, streamed)
        interrupted = False
        connection = self._connect()
        try:
            connection.request("POST", self._path, data, self._headers())
            response = connection.getresponse()
            if not 200 <= response.status < 300:
                raise Failed(_status_failure(response))
            try:
                _read(response, answer)
            except KeyboardInterrupt:
                interrupted = True
        finally:
            connection.close()
        litellm = via_litellm.loaded()
        tokens = answer.tokens
        if tokens is None:  # the server did not count them (or the reply was interrupted)
            text = "".join(answer.pieces)
            if litellm is None:
                tokens = wire.estimated(request, text)
            else:
                tokens = via_litellm.counted(litellm, self.name, request, text)
        return answer.completion(via_litellm.priced(litellm, self.name, tokens), interrupted)

    def _connect(self) -> http.client.HTTPConnection:
        host, port, timeout = self._base.hostname, self._base.port, self.settings.timeout
        if self._base.scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=timeout)
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "User-Agent": "coder"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        return headers

    def context_window(self) -> int | None:
        """The model's input token limit, when litellm is loaded anyway and knows it."""
        return via_litellm.context_window(via_litellm.loaded(), self.name)

    def count_tokens(self, text: str) -> int:
        """Tokens of text for this model, counted by litellm (which this loads)."""
        return via_litellm.load().token_counter(model=self.name, text=text)


def _read(response: http.client.HTTPResponse, answer: wire.Assembly) -> None:
    """Read a successful response into answer: a stream of events, or a whole answer from a
    server that does not stream."""
    if response.getheader("content-type", "").startswith("application/json"):
        _take(_loads(response.read()), answer, whole=True)
        return
    for event in events(response):
        _take(event, answer)


def events(response) -> Iterator[dict]:
    """The JSON objects of a server-sent event stream, up to `data: [DONE]` or its end.
    Failed on an event that is not a JSON object or carries an error, and on a reply without
    any event (a web page, say)."""
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
        yield _loads(payload.encode())
    if not seen:
        raise Failed(Failure("bad-reply", "the reply holds no server-sent events"))
    payload = "\n".join(data).strip()
    if payload and payload != "[DONE]":
        # An event the body ended in before its blank line: whole, it counts; cut, the
        # stream broke off (and is retried when nothing had streamed in).
        try:
            json.loads(payload)
        except ValueError:
            raise Failed(Failure("connection", "the stream ended inside an event")) from None
        yield _loads(payload.encode())


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


def _loads(payload: bytes) -> dict:
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


def _status_failure(response: http.client.HTTPResponse) -> Failure:
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
    if status is None or status >= 500:
        return "server"
    return "bad-request" if status >= 400 else "other"


def _int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _failure(exc: Exception) -> Failure:
    """What an exception of one attempt says went wrong."""
    if isinstance(exc, Failed):
        return exc.failure
    why = failures.unreachable(exc)
    if why is not None:
        return Failure("unreachable", why)
    if isinstance(exc, TimeoutError):
        return Failure("timeout", "no answer within the timeout")
    ssl = sys.modules.get("ssl")
    if ssl is not None and isinstance(exc, ssl.SSLError):
        return Failure("unreachable", f"TLS: {exc.reason or exc}")
    detail = failures.first_line(str(exc), type(exc).__name__)
    return Failure("connection", f"{type(exc).__name__}: {detail}")
