"""Fingerprints of requests and replies, so that nondeterminism can be seen across runs."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable

from coder.seams.model import Completion, Model, Request


def _digest(data: object) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def request_hash(model: str, request: Request) -> str:
    """SHA-256 of the canonical JSON of everything the request sends."""
    return _digest(
        {
            "model": model,
            "messages": [m.to_dict() for m in request.messages],
            "temperature": request.temperature,
            "tools": list(request.tools),
            "seed": request.seed,
            "max_tokens": request.max_tokens,
        }
    )


def reply_hash(completion: Completion) -> str:
    """SHA-256 of the canonical JSON of the reply's text and tool calls."""
    calls = [[c.name, c.arguments] for c in completion.tool_calls]
    return _digest({"text": completion.text, "tool_calls": calls})


class RecordingModel:
    """Wraps a model and records every call: its kind, the model, the temperature, the try it
    belongs to, and the hashes of the request and of the reply (None when the call failed)."""

    def __init__(self, model: Model):
        self.model = model
        self.name = model.name
        self.records: list[dict] = []
        self.attempt = 1
        """The try the next calls belong to; the runner moves it on. An edit request of a
        try after the first is recorded as a retry."""
        self.seconds = 0.0
        """Time spent waiting for answers, summed over calls."""
        self._lock = threading.Lock()

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Answer through the wrapped model, recording the call."""
        kind = "retry" if request.kind == "edit" and self.attempt > 1 else request.kind
        record = {
            "kind": kind,
            "model": self.name,
            "temperature": request.temperature,
            "try": self.attempt,
            "request": request_hash(self.name, request),
            "reply": None,
        }
        began = time.perf_counter()
        try:
            completion = self.model.complete(request, on_text)
            record["reply"] = reply_hash(completion)
            return completion
        except Exception as exc:
            record["error"] = type(exc).__name__
            raise
        finally:
            with self._lock:
                self.seconds += time.perf_counter() - began
                self.records.append(record)

    def context_window(self) -> int | None:
        """The wrapped model's context window, when it knows it."""
        return getattr(self.model, "context_window", lambda: None)()


def records_of(result: dict) -> list[dict]:
    """The request records of one exercise's result; a result written before calls had kinds
    (its "hashes") gives records without kind or temperature."""
    if "requests" in result:
        return result["requests"]
    return [{"kind": None, "temperature": None} | pair for pair in result.get("hashes", [])]
