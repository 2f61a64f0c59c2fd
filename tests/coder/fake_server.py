"""What the scripted API fakes (fake_openai, fake_anthropic) share: a threaded HTTP server on
127.0.0.1 serving a script until the `with` block ends, every request's body and headers
recorded, a request handler that reads the request and sends a whole answer, and the steps
a script is made of."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


class Scripted:
    """A fake API's server: `with Fake(script) as server:` serves server.base_url."""

    path = ""
    """What base_url adds after the host ("/v1")."""

    def __init__(self, script: list | Callable[[dict], object], handler: type) -> None:
        self.script = script if callable(script) else list(script)
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        """The headers of each request, names in lower case, and its path under ":path"."""
        self.rejected: list[dict] = []
        """The error bodies of the requests the rules rejected."""
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}{self.path}"

    def __enter__(self):
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, body: dict, headers: dict[str, str]) -> int:
        """Keep the request; its number, from 1."""
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            return len(self.requests)

    def scripted(self, number: int, body: dict):
        """The script's next step (or what the script's callable makes of the body)."""
        if callable(self.script):
            return self.script(body)
        with self._lock:
            assert self.script, f"the fake server got an unexpected request #{number}"
            return self.script.pop(0)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client that hangs up mid-reply (Ctrl-C, a timeout) is no error of the server's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    """Reads a request and hands it to the fake (set on a subclass as `fake`, whose next_step
    takes the body and headers), waiting out a Stall; sends whole answers."""

    protocol_version = "HTTP/1.1"
    fake: object
    always: tuple[tuple[str, str], ...] = ()
    """Headers every answer carries."""

    def log_message(self, *args) -> None:
        pass

    def step(self) -> tuple[dict, int, object]:
        """The request's body, its number and the step answering it."""
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        headers = {k.lower(): v for k, v in self.headers.items()} | {":path": self.path}
        number, step = self.fake.next_step(body, headers)
        if isinstance(step, Stall):
            time.sleep(step.seconds)
            step = step.then
        return body, number, step

    def send(self, code: int, data: bytes, kind: str, headers=()) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        for name, value in [*self.always, *headers]:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
