"""An Anthropic Messages API server on 127.0.0.1 for tests, answering from a script, as
fake_openai does for OpenAI's API (and with the same steps: Text, Calls, Status, Stall, Raw).

Every request is first checked against the API's rules (anthropic_rules): a request the real
API would reject gets the same status and error body. A valid one gets the next step of the
script as the API streams it: message_start, a ping, content blocks (text, or tool_use with its
input in input_json_delta pieces), message_delta with the stop reason and usage, message_stop.
An HTTP error comes in Anthropic's error shape (529 is overloaded_error).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from . import anthropic_rules
from .fake_openai import Calls, Raw, Stall, Status, _Server

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
"""The error type Anthropic sends with each status."""
USAGE = (11, 7)
"""Input and output tokens of every answer (as fake_openai's)."""


class FakeAnthropic:
    """`with FakeAnthropic([Text("hi")]) as server:` serves server.base_url (a host, as
    ANTHROPIC_BASE_URL is) until the block ends."""

    def __init__(self, script: list | Callable[[dict], object]):
        self.script = script if callable(script) else list(script)
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        """The headers of each request, names in lower case, and its path under ":path"."""
        self.rejected: list[dict] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeAnthropic:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_step(self, body: dict, headers: dict[str, str]):
        """The step answering a request: its rejection when it breaks a rule, else the next of
        the script (or what the script's callable makes of the body)."""
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            number = len(self.requests)
        if headers[":path"].partition("?")[0] != "/v1/messages":
            return number, Status(404, body=_error(404, "Not Found"))
        try:
            anthropic_rules.check(body, headers)
        except anthropic_rules.Rejected as exc:
            self.rejected.append(exc.body)
            return number, Status(exc.status, body=exc.body)
        if callable(self.script):
            return number, self.script(body)
        with self._lock:
            assert self.script, f"the fake server got an unexpected request #{number}"
            return number, self.script.pop(0)


def _error(status: int, message: str) -> dict:
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _handler(fake: FakeAnthropic):
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
                data = step.body or _error(step.code, step.message)
                self._send(step.code, json.dumps(data).encode(), "application/json", step.headers)
                return
            if isinstance(step, Raw):
                self._send(200, step.data, step.content_type)
                return
            events = _events(step, body, number)
            if not body.get("stream"):
                self._send(200, json.dumps(_whole(events)).encode(), "application/json")
                return
            data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
            self._send(200, data.encode(), "text/event-stream")

        def _send(self, code: int, data: bytes, kind: str, headers=()) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("request-id", "req_fake")
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _events(step, body: dict, number: int) -> list[dict]:
    message = {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": USAGE[0], "output_tokens": 1},
    }
    events = [{"type": "message_start", "message": message}, {"type": "ping"}]
    if isinstance(step, Calls):
        for n, (name, arguments) in enumerate(step.calls):
            block = {"type": "tool_use", "id": f"toolu_{number}_{n}", "name": name, "input": {}}
            events.append({"type": "content_block_start", "index": n, "content_block": block})
            for i in range(0, len(arguments), 20):
                piece = {"type": "input_json_delta", "partial_json": arguments[i : i + 20]}
                events.append({"type": "content_block_delta", "index": n, "delta": piece})
            events.append({"type": "content_block_stop", "index": n})
        stop = "tool_use"
    else:
        start = {"type": "text", "text": ""}
        events.append({"type": "content_block_start", "index": 0, "content_block": start})
        size = step.chunk_size
        for i in range(0, len(step.text), size):
            piece = {"type": "text_delta", "text": step.text[i : i + size]}
            events.append({"type": "content_block_delta", "index": 0, "delta": piece})
        events.append({"type": "content_block_stop", "index": 0})
        stop = "max_tokens" if step.finish == "length" else "end_turn"
    delta = {"stop_reason": stop, "stop_sequence": None}
    events.append({"type": "message_delta", "delta": delta, "usage": {"output_tokens": USAGE[1]}})
    events.append({"type": "message_stop"})
    return events


def _whole(events: list[dict]) -> dict:
    """The message a stream of events makes, for a request that did not ask to stream."""
    message = dict(events[0]["message"])
    blocks: dict[int, dict] = {}
    for event in events:
        if event["type"] == "content_block_start":
            blocks[event["index"]] = dict(event["content_block"])
        elif event["type"] == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                block["partial"] = block.get("partial", "") + delta["partial_json"]
        elif event["type"] == "message_delta":
            message["stop_reason"] = event["delta"]["stop_reason"]
            message["usage"] = {"input_tokens": USAGE[0], "output_tokens": USAGE[1]}
    for block in blocks.values():
        if "partial" in block:
            block["input"] = json.loads(block.pop("partial"))
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message
