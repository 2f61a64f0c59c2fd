"""A model's rate limit shared by every call of a benchmark: by the threads of one process, or,
as a Ray actor, by every worker of a cluster (benchmark/scaleout.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from coder.seams.model import Completion, Model, Request


class Limiter(Protocol):
    """Hands out the start times of calls."""

    def reserve(self) -> float:
        """Reserve the next free start; the seconds to wait before it."""
        ...


class RateLimiter:
    """At most `per_minute` calls started in any minute, evenly spaced: each reservation takes
    the next free start time. Thread-safe; the same class is the Ray actor's body."""

    def __init__(self, per_minute: float):
        if per_minute <= 0:
            raise ValueError(f"a rate limit must be above 0 calls a minute, not {per_minute}")
        self.interval = 60.0 / per_minute
        self._next = 0.0
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """The seconds until the caller's turn, its start then taken."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
            return start - now


class LimitedModel:
    """A model whose every call first waits for its turn from a limiter."""

    def __init__(self, model: Model, limiter: Limiter, sleep: Callable[[float], None] = time.sleep):
        self.model = model
        self.name = model.name
        self.limiter = limiter
        self._sleep = sleep

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Wait for a turn, then answer through the wrapped model."""
        wait = self.limiter.reserve()
        if wait > 0:
            self._sleep(wait)
        return self.model.complete(request, on_text)

    def context_window(self) -> int | None:
        """The wrapped model's context window, when it knows it."""
        return getattr(self.model, "context_window", lambda: None)()
