"""Why a request failed, what the user is told, and the retry policy both routes share.

A failure has a kind. Passing kinds (a rate limit, a server error, a timeout, a dropped
connection) are retried with backoff, waiting what the server's Retry-After asks when it asks
for at most a minute; the others fail at once, as does any failure once text has streamed in.
A server that cannot be reached at all (connection refused, unknown host) is not passing: it
fails at once with a message naming the URL. Neither is a server coder started itself (the
local llama.cpp) once its process has ended: the message says how it ended.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from coder.errors import ModelError
from coder.seams.llm.settings import ModelSettings
from coder.seams.model import Completion

PASSING = {"rate-limit", "server", "timeout", "connection"}
"""The kinds of failure that are retried."""
LABELS = {
    "rate-limit": "rate limited (429)",
    "server": "the provider had a server error",
    "timeout": "the request timed out",
    "connection": "could not reach the provider",
}
MAX_RETRY_AFTER = 60.0
"""The longest Retry-After honoured; a server asking for more gets the usual backoff."""
_WATCHED: dict[str, Callable[[], str | None]] = {}
"""For the URL of a server coder started: how its process ended, or None while it runs."""


def watch(url: str, ended: Callable[[], str | None]) -> None:
    """Have a request to url that lost its connection say ended() (how the server's process
    ended) and stop retrying, once that is no longer None."""
    _WATCHED[url] = ended


def unwatch(url: str) -> None:
    """Forget the server at url (stopped by coder: another may take its port)."""
    _WATCHED.pop(url, None)


def ended(url: str | None) -> str | None:
    """How the process serving url ended, when coder started it and it has; else None."""
    check = _WATCHED.get(url or "")
    return check() if check is not None else None


@dataclass(frozen=True)
class Failure:
    """What went wrong with one attempt."""

    kind: str
    """One of auth, no-key, not-found, context, rate-limit, server, timeout, connection,
    unreachable, bad-request, bad-reply, other."""
    detail: str
    """The provider's own words (one line), or the reason a connection failed."""
    retry_after: float | None = None
    """Seconds the server asked to wait before the next try."""


def explain(failure: Failure, model: str, url: str | None) -> str:
    """A one-line message for the user."""
    first = failure.detail
    if failure.kind == "unreachable":
        hint = ": is the server running?" if "refused" in first else ""
        where = url or f"{model}'s provider"
        return f"cannot connect to {where} ({first}){hint}"
    return {
        "auth": f"the provider rejected the API key for {model}: check the key ({first})",
        "no-key": f"no API key for {model}: pass --api-key or set the provider's variable"
        f" ({first})",
        "not-found": f"unknown model {model!r} ({first})",
        "context": f"the conversation is too long for {model}'s context window: use /drop,"
        " /clear or a model with a larger window",
        "timeout": f"{model} did not answer in time ({first})",
        "rate-limit": f"{model} is rate limited and retries ran out ({first})",
        "server": f"{model}'s provider kept failing ({first})",
        "connection": f"could not reach {model}'s provider ({first})",
        "bad-reply": f"{model}'s server sent a reply coder cannot read ({first})",
    }.get(failure.kind, f"{model} failed: {first}")


def unreachable(exc: BaseException) -> str | None:
    """Why exc, or an error it was raised from, says the server cannot be reached at all
    ("connection refused", "unknown host NAME"); None when it says something else."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ConnectionRefusedError):
            return "connection refused"
        if isinstance(exc, socket.gaierror):
            return f"unknown host: {exc.strerror or exc}"
        exc = exc.__cause__ or exc.__context__
    return None


def retry_after(headers) -> float | None:
    """The seconds a response's Retry-After (or OpenAI's retry-after-ms) header asks for."""
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return float(millis) / 1000
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            from email.utils import parsedate_to_datetime

            return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError, AttributeError):
        return None


def first_line(text: str, fallback: str) -> str:
    """The first line of text, at most 200 characters; fallback when there is none."""
    lines = text.strip().splitlines()
    return lines[0][:200] if lines else fallback


def retrying(
    attempt: Callable[[list[str]], Completion],
    failure_of: Callable[[Exception], Failure],
    errors: type[Exception] | tuple[type[Exception], ...],
    settings: ModelSettings,
    names: tuple[str, str | None],
    on_retry: Callable[[str], None],
) -> Completion:
    """attempt(streamed) until it answers: passing failures (errors, read by failure_of) are
    retried with backoff while nothing has streamed into streamed; then ModelError."""
    model, url = names
    delay = settings.backoff
    for number in range(settings.retries + 1):
        streamed: list[str] = []
        try:
            return attempt(streamed)
        except errors as exc:
            failure = failure_of(exc)
            gone = ended(url) if failure.kind in ("connection", "unreachable", "server") else None
            if gone is not None:
                raise ModelError(f"the server at {url} stopped: {gone}", "".join(streamed)) from exc
            if failure.kind not in PASSING or streamed or number == settings.retries:
                raise ModelError(explain(failure, model, url), "".join(streamed)) from exc
            asked = failure.retry_after
            wait = asked if asked is not None and 0 <= asked <= MAX_RETRY_AFTER else delay
            on_retry(f"{LABELS[failure.kind]}; retrying in {wait:.0f} s")
            time.sleep(wait)
            delay *= 2
    raise AssertionError("unreachable")
