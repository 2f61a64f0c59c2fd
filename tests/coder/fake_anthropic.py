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
from collections.abc import Callable

from . import anthropic_rules
from .fake_server import Calls, Handler, Raw, Scripted, Status

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


class FakeAnthropic(Scripted):
    """`with FakeAnthropic([Text("hi")]) as server:` serves server.base_url (a host, as
    ANTHROPIC_BASE_URL is) until the block ends."""

    def __init__(self, script: list | Callable[[dict], object]):
        super().__init__(script, _handler(self))

    def next_step(self, body: dict, headers: dict[str, str]):
        """The step answering a request: its rejection when it breaks a rule, else the next of
        the script (or what the script's callable makes of the body)."""
        number = self.record(body, headers)
        if headers[":path"].partition("?")[0] != "/v1/messages":
            return number, Status(404, body=_error(404, "Not Found"))
        try:
            anthropic_rules.check(body, headers)
        except anthropic_rules.Rejected as exc:
            self.rejected.append(exc.body)
            return number, Status(exc.status, body=exc.body)
        return number, self.scripted(number, body)


def _error(status: int, message: str) -> dict:
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _handler(server: FakeAnthropic) -> type:
    class AnthropicHandler(Handler):
        fake = server
        always = (("request-id", "req_fake"),)

        def do_POST(self) -> None:
            body, number, step = self.step()
            if isinstance(step, Status):
                data = step.body or _error(step.code, step.message)
                self.send(step.code, json.dumps(data).encode(), "application/json", step.headers)
                return
            if isinstance(step, Raw):
                self.send(200, step.data, step.content_type)
                return
            events = _events(step, body, number)
            if not body.get("stream"):
                self.send(200, json.dumps(_whole(events)).encode(), "application/json")
                return
            data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
            self.send(200, data.encode(), "text/event-stream")

    return AnthropicHandler


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
