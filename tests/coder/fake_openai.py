"""An OpenAI-compatible chat server on 127.0.0.1 for tests, answering from a script.

Each request takes the next step of the script: streamed text, streamed tool calls, an HTTP
error, a stall, or a stream cut off before its end. Every request body is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Text:
    """Stream text in pieces of chunk_size characters, then the usage."""

    text: str
    chunk_size: int = 7


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


@dataclass(frozen=True)
class Stall:
    """Wait before answering (longer than the client's timeout, to test it)."""

    seconds: float
    then: Text = Text("late")


@dataclass(frozen=True)
class CutOff:
    """Stream some text, then close the connection without finishing."""

    text: str


class FakeOpenAI:
    """`with FakeOpenAI([Text("hi")]) as server:` serves server.base_url until the block ends."""

    def __init__(self, script: list):
        self.script = list(script)
        self.requests: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_step(self, body: dict):
        self.requests.append(body)
        assert self.script, f"the fake server got an unexpected request #{len(self.requests)}"
        return self.script.pop(0)


def _handler(fake: FakeOpenAI):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            step = fake.next_step(body)
            if isinstance(step, Stall):
                time.sleep(step.seconds)
                step = step.then
            if isinstance(step, Status):
                error = {"message": step.message, "type": "error", "code": step.error_code}
                self._send(step.code, json.dumps({"error": error}).encode(), "application/json")
                return
            if not body.get("stream"):
                self._send(200, json.dumps(_whole(step, body)).encode(), "application/json")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in _chunks(step, body):
                self._chunked(f"data: {json.dumps(chunk)}\n\n".encode())
            self.close_connection = True
            if isinstance(step, CutOff):
                # Close without the final empty chunk: the body is incomplete, as when a
                # connection drops.
                self._chunked(b'data: {"broken')
                return
            self._chunked(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _chunked(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _send(self, code: int, data: bytes, kind: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
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


def _chunks(step, body: dict) -> list[dict]:
    chunks = [_chunk(body, {"role": "assistant", "content": ""})]
    if isinstance(step, Calls):
        for n, (name, arguments) in enumerate(step.calls):
            head = {"index": n, "id": f"call_{n}", "type": "function"}
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
        chunks.append(_chunk(body, {}, "stop"))
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
