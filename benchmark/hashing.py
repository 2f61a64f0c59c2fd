"""Fingerprints of requests and replies, so that nondeterminism can be seen across runs."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable

from coder.model import Completion, Model, Request


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
    """Wraps a model and records a (request hash, reply hash) pair per call."""

    def __init__(self, model: Model):
        self.model = model
        self.name = model.name
        self.pairs: list[dict[str, str]] = []
        self.seconds = 0.0
        """Time spent waiting for answers, summed over calls."""
        self._lock = threading.Lock()

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Answer through the wrapped model, recording the fingerprints."""
        began = time.perf_counter()
        completion = self.model.complete(request, on_text)
        with self._lock:
            self.seconds += time.perf_counter() - began
            self.pairs.append(
                {"request": request_hash(self.name, request), "reply": reply_hash(completion)}
            )
        return completion
