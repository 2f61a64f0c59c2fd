"""The direct route: chat requests over HTTP straight to an OpenAI-compatible server
(`openai/NAME` with an API base), with the standard library only, so that the first request
waits on no import. It streams, assembles function calls, retries and explains failures as the
litellm route does; prices and context windows come from litellm only when it is loaded anyway.
"""

from __future__ import annotations

import http.client
import json
import sys
from collections.abc import Callable
from urllib.parse import urlsplit

from coder.errors import UsageError
from coder.seams.llm import failures, sse, via_litellm, wire
from coder.seams.llm.failures import Failure
from coder.seams.llm.settings import ModelSettings, resolve
from coder.seams.llm.sse import Failed
from coder.seams.model import Completion, Request


class DirectModel:
    """A model behind an OpenAI-compatible server, reached without litellm."""

    def __init__(self, settings: ModelSettings, on_retry: Callable[[str], None] | None = None):
        base = urlsplit(settings.api_base or "")
        if base.scheme not in ("http", "https") or not base.hostname:
            raise UsageError(f"--api-base {settings.api_base!r} is not an http:// or https:// URL")
        self.settings = settings
        self.name = resolve(settings.name)
        self.on_retry = on_retry or (lambda message: None)
        self._base = base
        self._path = base.path.rstrip("/") + "/chat/completions"
        if base.query:
            self._path += "?" + base.query
        self._model = self.name.removeprefix("openai/")
        """The name the server knows the model by (as litellm sends it)."""

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Stream the answer to request, retrying rate limits, server errors and timeouts."""
        return failures.retrying(
            lambda streamed: self._once(request, on_text, streamed),
            _failure,
            (Failed, OSError, http.client.HTTPException),
            self.settings,
            (self.name, self.settings.api_base),
            self.on_retry,
        )

    def _once(self, request: Request, on_text, streamed: list[str]) -> Completion:
        data = json.dumps(wire.body(self._model, request, self.settings)).encode()
        answer = wire.Assembly(on_text, streamed)
        interrupted = False
        connection = self._connect()
        try:
            connection.request("POST", self._path, data, self._headers())
            response = connection.getresponse()
            if not 200 <= response.status < 300:
                raise Failed(sse.status_failure(response))
            try:
                sse.read(response, answer)
            except KeyboardInterrupt:
                interrupted = True
        finally:
            connection.close()
        litellm = via_litellm.loaded()
        tokens = answer.tokens
        if tokens is None:  # the server did not count them (or the reply was interrupted)
            text = "".join(answer.pieces)
            if litellm is None:
                tokens = wire.estimated(request, text)
            else:
                tokens = via_litellm.counted(litellm, self.name, request, text)
        return answer.completion(via_litellm.priced(litellm, self.name, tokens), interrupted)

    def _connect(self) -> http.client.HTTPConnection:
        host, port, timeout = self._base.hostname, self._base.port, self.settings.timeout
        if self._base.scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=timeout)
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "User-Agent": "coder"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        return headers

    def context_window(self) -> int | None:
        """The model's input token limit: the settings', else litellm's when it is loaded
        anyway and knows it."""
        if self.settings.context_window:
            return self.settings.context_window
        return via_litellm.context_window(via_litellm.loaded(), self.name)

    def count_tokens(self, text: str) -> int:
        """Tokens of text for this model, counted by litellm (which this loads)."""
        return via_litellm.load().token_counter(model=self.name, text=text)


def _failure(exc: Exception) -> Failure:
    """What an exception of one attempt says went wrong."""
    if isinstance(exc, Failed):
        return exc.failure
    why = failures.unreachable(exc)
    if why is not None:
        return Failure("unreachable", why)
    if isinstance(exc, TimeoutError):
        return Failure("timeout", "no answer within the timeout")
    ssl = sys.modules.get("ssl")
    if ssl is not None and isinstance(exc, ssl.SSLError):
        return Failure("unreachable", f"TLS: {exc.reason or exc}")
    detail = failures.first_line(str(exc), type(exc).__name__)
    return Failure("connection", f"{type(exc).__name__}: {detail}")
