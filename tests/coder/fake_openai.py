"""An OpenAI-compatible chat server on 127.0.0.1 for tests, answering from a script.

Every request is first checked against the API's rules (openai_rules): a request the real API
would reject gets the same status and error body, and the test that sent it sees a failure.
A valid request takes the next step of the script: streamed text, streamed tool calls (each
with an id of its own), an HTTP error (with headers such as Retry-After), a stall, a stream cut
off before its end, raw bytes (a malformed stream, say), or a callable that makes the step from
the request body. Every request body and its headers are recorded, and every rejection too
(in rejected).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import openai_rules


@dataclass(frozen=True)
class Text:
    """Stream text in pieces of chunk_size characters, then the usage."""

    text: str
    chunk_size: int = 7
    finish: str = "stop"
    """The finish_reason: "length" says the model hit its token limit."""


@dataclass(frozen=True)
class Calls:
    """Stream tool calls: (name, arguments JSON) pairs, the arguments in pieces."""

    calls: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Status:
    """Answer with an HTTP error in OpenAI's error shape."""

    code: int
    message: str = "error"
    error_code: str | None = None
    body: dict | None = None
    """The whole error body, when a rule made it."""
    headers: tuple[tuple[str, str], ...] = ()
    """Response headers to send, such as ("Retry-After", "1")."""


@dataclass(frozen=True)
class Stall:
    """Wait before answering (longer than the client's timeout, to test it)."""

    seconds: float
    then: Text = Text("late")


@dataclass(frozen=True)
class CutOff:
    """Stream some text, then close the connection without finishing."""

    text: str
    inside_event: bool = True
    """The last thing sent is half an event; else the cut comes between two events."""


@dataclass(frozen=True)
class Raw:
    """Answer 200 with these bytes as the whole body, as they are."""

    data: bytes
    content_type: str = "text/event-stream"


class FakeOpenAI:
    """`with FakeOpenAI([Text("hi")]) as server:` serves server.base_url until the block ends."""

    def __init__(self, script: list | Callable[[dict], object]):
        self.script = script if callable(script) else list(script)
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        """The headers of each request, names in lower case, and its path under ":path"."""
        self.rejected: list[dict] = []
        """The error bodies of the requests the rules rejected."""
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_step(self, body: dict, headers: dict[str, str] | None = None):
        """The step answering a request: its rejection when it breaks a rule, else the next of
        the script (or what the script's callable makes of the body)."""
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers or {})
            number = len(self.requests)
        try:
            openai_rules.check(body)
        except openai_rules.Rejected as exc:
            self.rejected.append(exc.body)
            return number, Status(exc.status, exc.body["error"]["message"], body=exc.body)
        if callable(self.script):
            return number, self.script(body)
        with self._lock:
            assert self.script, f"the fake server got an unexpected request #{number}"
            return number, self.script.pop(0)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client that hangs up mid-reply (Ctrl-C, a timeout) is no error of the server's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler(fake: FakeOpenAI):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            headers = {k.lower(): v for k, v in self.headers.items()} | {":path": self.path}
            number, step = fake.next_step(body, headers)
            if isinstance(step, Stall):
                time.sleep(step.seconds)
                step = step.then
            if isinstance(step, Status):
                error = {"message": step.message, "type": "error", "code": step.error_code}
                data = step.body or {"error": error}
                self._send(step.code, json.dumps(data).encode(), "application/json", step.headers)
                return
            if isinstance(step, Raw):
                self._send(200, step.data, step.content_type)
                return
            if not body.get("stream"):
                self._send(200, json.dumps(_whole(step, body)).encode(), "application/json")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in _chunks(step, body, number):
                self._chunked(f"data: {json.dumps(chunk)}\n\n".encode())
            self.close_connection = True
            if isinstance(step, CutOff):
                # Close without the final empty chunk: the body is incomplete, as when a
                # connection drops.
                if step.inside_event:
                    self._chunked(b'data: {"broken')
                return
            self._chunked(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _chunked(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _send(self, code: int, data: bytes, kind: str, headers=()) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _chunk(body: dict, delta: dict, finish: str | None = None) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _chunks(step, body: dict, number: int) -> list[dict]:
    chunks = [_chunk(body, {"role": "assistant", "content": ""})]
    if isinstance(step, Calls):
        for n, (name, arguments) in enumerate(step.calls):
            head = {"index": n, "id": f"call_{number}_{n}", "type": "function"}
            chunks.append(_chunk(body, {"tool_calls": [{**head, "function": {"name": name}}]}))
            for i in range(0, len(arguments), 20):
                piece = {"index": n, "function": {"arguments": arguments[i : i + 20]}}
                chunks.append(_chunk(body, {"tool_calls": [piece]}))
        chunks.append(_chunk(body, {}, "tool_calls"))
    else:
        size = getattr(step, "chunk_size", 5)
        for i in range(0, len(step.text), size):
            chunks.append(_chunk(body, {"content": step.text[i : i + size]}))
        if isinstance(step, CutOff):
            return chunks
        chunks.append(_chunk(body, {}, getattr(step, "finish", "stop")))
    usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    chunks.append({**_chunk(body, {}), "choices": [], "usage": usage})
    return chunks


def _whole(step, body: dict) -> dict:
    message = {"role": "assistant", "content": getattr(step, "text", "")}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }
