"""The direct route: chat requests over HTTP straight to a provider (a hosted one of the
providers table, or any OpenAI-compatible server given by its API base), with the standard
library only, so that the first request waits on no import. It speaks the provider's wire
(OpenAI's chat completions or Anthropic's Messages), goes through an http:// proxy when the
environment names one, streams, assembles function calls, retries and explains failures as the
litellm route does, and prices replies from litellm's price map read as data.
"""

from __future__ import annotations

import http.client
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from coder.errors import UsageError
from coder.seams.llm import anthropic, failures, prices, sse, via_litellm, wire
from coder.seams.llm.failures import Failure
from coder.seams.llm.providers import PROVIDERS, Provider, find
from coder.seams.llm.proxy import Proxy
from coder.seams.llm.settings import ModelSettings, resolve
from coder.seams.llm.sse import Failed
from coder.seams.model import Completion, Request


@dataclass(frozen=True)
class Wire:
    """How one API is spoken."""

    path: Callable[[str], str]
    """The endpoint's path under the base URL's path."""
    headers: Callable[[str | None], dict[str, str]]
    """The request's headers, with the key (when there is one)."""
    body: Callable[..., dict]
    """body(model, request, settings, quirks, max_output): the request's JSON body."""
    read: Callable[[http.client.HTTPResponse, wire.Assembly], None]
    """Read a successful response into an answer."""


def _bearer(key: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "User-Agent": "coder"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


WIRES = {
    "openai": Wire(
        lambda base: base.rstrip("/") + "/chat/completions",
        _bearer,
        lambda model, request, settings, quirks, _: wire.body(model, request, settings, quirks),
        sse.read,
    ),
    "anthropic": Wire(
        anthropic.path,
        anthropic.headers,
        lambda model, request, settings, _, most: anthropic.body(model, request, settings, most),
        anthropic.read,
    ),
}
"""The APIs the direct route speaks, by the providers table's `wire`."""


class DirectModel:
    """A model behind a provider's API, reached without litellm."""

    def __init__(
        self,
        settings: ModelSettings,
        on_retry: Callable[[str], None] | None = None,
        provider: Provider | None = None,
        proxy: Proxy | None = None,
    ):
        found = find(settings.name)
        self.provider = provider or (found[0] if found else PROVIDERS["openai"])
        self.name = resolve(settings.name)
        self._model = found[1] if found else self.name.removeprefix("openai/")
        """The name the provider knows the model by."""
        base = urlsplit(settings.api_base or self.provider.base_url)
        if base.scheme not in ("http", "https") or not base.hostname:
            raise UsageError(f"--api-base {settings.api_base!r} is not an http:// or https:// URL")
        self.settings = settings
        self.on_retry = on_retry or (lambda message: None)
        self.proxy = proxy
        self._base = base
        self._wire = WIRES[self.provider.wire]
        self._path = self._wire.path(base.path)
        if base.query:
            self._path += "?" + base.query
        self._names = tuple(
            dict.fromkeys((self.name, f"{self.provider.name}/{self._model}", self._model))
        )
        """The model's names as litellm's price map may list it."""

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Stream the answer to request, retrying rate limits, server errors and timeouts."""
        where = self.settings.api_base or self.provider.base_url
        if self.proxy is not None:
            where += f" (through the proxy {self.proxy.url})"
        return failures.retrying(
            lambda streamed: self._once(request, on_text, streamed),
            _failure,
            (Failed, OSError, http.client.HTTPException),
            self.settings,
            (self.name, where),
            self.on_retry,
        )

    def _once(self, request: Request, on_text, streamed: list[str]) -> Completion:
        key = self.settings.api_key
        if not key and self._base.geturl().rstrip("/") == self.provider.base_url:
            # Only the user's own server (an API base of theirs) may be asked without a key.
            names = " or ".join(self.provider.keys)
            raise Failed(Failure("no-key", f"{names} is not set"))
        data = self._wire.body(
            self._model,
            request,
            self.settings,
            self.provider.quirks,
            prices.max_output(self._names) if self.provider.wire == "anthropic" else None,
        )
        answer = wire.Assembly(on_text, streamed)
        interrupted = False
        connection, path = self._connect()
        try:
            connection.request("POST", path, json.dumps(data).encode(), self._headers(key))
            response = connection.getresponse()
            if not 200 <= response.status < 300:
                raise Failed(sse.status_failure(response))
            try:
                self._wire.read(response, answer)
            except KeyboardInterrupt:
                interrupted = True
        finally:
            connection.close()
        tokens = answer.tokens
        if tokens is None:  # the server did not count them (or the reply was interrupted)
            text = "".join(answer.pieces)
            litellm = via_litellm.loaded()
            if litellm is None:
                tokens = wire.estimated(request, text)
            else:
                tokens = via_litellm.counted(litellm, self.name, request, text)
        return answer.completion(prices.usage(self._names, tokens), interrupted)

    def _connect(self) -> tuple[http.client.HTTPConnection, str]:
        """A connection to the provider (through the proxy, when there is one) and the path
        to post to on it."""
        host, port, timeout = self._base.hostname, self._base.port, self.settings.timeout
        https = self._base.scheme == "https"
        if self.proxy is None:
            kind = http.client.HTTPSConnection if https else http.client.HTTPConnection
            return kind(host, port, timeout=timeout), self._path
        proxy = self.proxy
        auth = {"Proxy-Authorization": proxy.authorization} if proxy.authorization else {}
        if https:
            connection = http.client.HTTPSConnection(proxy.host, proxy.port, timeout=timeout)
            connection.set_tunnel(host, port, headers=auth)
            return connection, self._path
        # A plain http:// request goes to the proxy whole, naming its URL (no tunnel).
        connection = http.client.HTTPConnection(proxy.host, proxy.port, timeout=timeout)
        netloc = f"{host}:{port}" if port else host
        return connection, f"http://{netloc}{self._path}"

    def _headers(self, key: str | None) -> dict[str, str]:
        headers = self._wire.headers(key)
        if self.proxy is not None and self._base.scheme == "http" and self.proxy.authorization:
            headers["Proxy-Authorization"] = self.proxy.authorization
        return headers

    def context_window(self) -> int | None:
        """The model's input token limit: the settings', else litellm's price map's."""
        return self.settings.context_window or prices.context_window(self._names)

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
    if isinstance(exc, OSError) and str(exc).startswith("Tunnel connection failed"):
        why = str(exc).split(": ", 1)[-1]
        return Failure("unreachable", f"the proxy would not open a tunnel: {why}")
    ssl = sys.modules.get("ssl")
    if ssl is not None and isinstance(exc, ssl.SSLError):
        return Failure("unreachable", f"TLS: {exc.reason or exc}")
    detail = failures.first_line(str(exc), type(exc).__name__)
    return Failure("connection", f"{type(exc).__name__}: {detail}")
