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
from collections.abc import Callable

from . import openai_rules
from .fake_server import Calls, CutOff, Handler, Raw, Scripted, Stall, Status, Text

__all__ = ["Calls", "CutOff", "FakeOpenAI", "Raw", "Stall", "Status", "Text"]


class FakeOpenAI(Scripted):
    """`with FakeOpenAI([Text("hi")]) as server:` serves server.base_url until the block ends."""

    path = "/v1"

    def __init__(self, script: list | Callable[[dict], object]):
        super().__init__(script, _handler(self))

    def next_step(self, body: dict, headers: dict[str, str] | None = None):
        """The step answering a request: its rejection when it breaks a rule, else the next of
        the script (or what the script's callable makes of the body)."""
        number = self.record(body, headers or {})
        try:
            openai_rules.check(body)
        except openai_rules.Rejected as exc:
            self.rejected.append(exc.body)
            return number, Status(exc.status, exc.body["error"]["message"], body=exc.body)
        return number, self.scripted(number, body)


def _handler(server: FakeOpenAI) -> type:
    class OpenAIHandler(Handler):
        fake = server

        def do_POST(self) -> None:
            body, number, step = self.step()
            if isinstance(step, Status):
                error = {"message": step.message, "type": "error", "code": step.error_code}
                data = step.body or {"error": error}
                self.send(step.code, json.dumps(data).encode(), "application/json", step.headers)
                return
            if isinstance(step, Raw):
                self.send(200, step.data, step.content_type)
                return
            if not body.get("stream"):
                self.send(200, json.dumps(_whole(step, body)).encode(), "application/json")
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

    return OpenAIHandler


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
