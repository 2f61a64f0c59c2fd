"""The route through litellm, for the models the direct route does not reach (and any model with
--via-litellm): the only module that imports litellm.

litellm takes seconds to import. It is loaded once, when first needed; preload() starts that
in a background thread (while the repository and files are read), and the first request waits
for it. The direct route never loads it (it reads litellm's price map as data, in prices.py),
but counts tokens with it when it is loaded anyway.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from functools import cache

from coder.seams.llm import failures, wire
from coder.seams.llm.failures import Failure
from coder.seams.llm.settings import ModelSettings, resolve
from coder.seams.model import Completion, Request, Usage

_loading: list[threading.Thread] = []
_lock = threading.Lock()


def preload() -> None:
    """Start importing litellm in a background thread, once; load() waits for it."""
    with _lock:
        if _loading or "litellm" in sys.modules:
            return
        thread = threading.Thread(target=_import_quietly, name="import litellm", daemon=True)
        _loading.append(thread)
    thread.start()


def load():
    """The litellm module, imported once (waiting for preload() when it started it)."""
    with _lock:
        started = list(_loading)
    for thread in started:
        thread.join()
    return _import()


def loaded():
    """The litellm module when it has been imported, else None (never imports it)."""
    return _import() if _import.cache_info().currsize else None


def _import_quietly() -> None:
    # A failure is not shown from the thread: load() imports again, and raises it there.
    with contextlib.suppress(Exception):
        _import()


@cache
def _import():
    # Read from the package, not the network: works offline and starts faster.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.drop_params = True
    litellm.telemetry = False
    return litellm


class LiteLLMModel:
    """A model reached through litellm, streaming, with retries on passing failures."""

    def __init__(self, settings: ModelSettings, on_retry: Callable[[str], None] | None = None):
        self.settings = settings
        self.name = resolve(settings.name)
        self.on_retry = on_retry or (lambda message: None)

    def complete(
        self, request: Request, on_text: Callable[[str], None] | None = None
    ) -> Completion:
        """Stream the answer to request, retrying rate limits, server errors and timeouts."""
        litellm = load()
        return failures.retrying(
            lambda streamed: self._stream(litellm, request, on_text, streamed),
            lambda exc: _failure(litellm, exc),
            Exception,  # litellm raises many kinds, from itself, openai and httpx
            self.settings,
            (self.name, self.settings.api_base),
            self.on_retry,
        )

    def _stream(self, litellm, request: Request, on_text, streamed: list[str]) -> Completion:
        kwargs = wire.body(self.name, request, self.settings)
        kwargs |= {"timeout": self.settings.timeout, "num_retries": 0}
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        if self.settings.api_key:
            kwargs["api_key"] = self.settings.api_key
        answer = wire.Assembly(on_text, streamed)
        usage = None
        interrupted = False
        stream = litellm.completion(**kwargs)
        try:
            for chunk in stream:
                usage = getattr(chunk, "usage", None) or usage
                if not chunk.choices:
                    continue
                answer.ended(chunk.choices[0].finish_reason)
                delta = chunk.choices[0].delta
                answer.text(delta.content)
                for call in delta.tool_calls or []:
                    answer.call(call.index, call.id, call.function.name, call.function.arguments)
        except KeyboardInterrupt:
            interrupted = True
        if usage is not None:
            tokens = (usage.prompt_tokens or 0, usage.completion_tokens or 0)
        else:
            tokens = counted(litellm, self.name, request, "".join(answer.pieces))
        return answer.completion(priced(litellm, self.name, tokens), interrupted)

    def context_window(self) -> int | None:
        """The model's input token limit: the settings', else litellm's when it knows it."""
        return self.settings.context_window or context_window(load(), self.name)

    def count_tokens(self, text: str) -> int:
        """Tokens of text for this model (litellm ships the tokenizers, so this works offline)."""
        return load().token_counter(model=self.name, text=text)


def counted(litellm, model: str, request: Request, text: str) -> tuple[int, int]:
    """Prompt and completion tokens as litellm counts them (its tokenizers ship with it), for
    a server that did not say."""
    messages = [m.to_dict() for m in request.messages]
    return (
        litellm.token_counter(model=model, messages=messages),
        litellm.token_counter(model=model, text=text),
    )


def priced(litellm, model: str, tokens: tuple[int, int]) -> Usage:
    """The usage of tokens, with their cost from litellm's local price map when litellm is
    given (loaded) and knows the model's price; else the cost is None: unknown."""
    if litellm is None:
        return Usage(*tokens)
    try:
        prices = litellm.cost_per_token(
            model=model, prompt_tokens=tokens[0], completion_tokens=tokens[1]
        )
    except Exception:  # litellm raises many kinds for a model without a known price
        return Usage(*tokens)
    return Usage(*tokens, sum(prices))


def context_window(litellm, model: str) -> int | None:
    """The model's input token limit from litellm's map (None: unknown, or litellm not loaded)."""
    if litellm is None:
        return None
    try:
        return litellm.get_model_info(model).get("max_input_tokens")
    except Exception:  # litellm raises many kinds for a model it does not know
        return None


def _failure(litellm, exc: Exception) -> Failure:
    """What a litellm exception says went wrong."""
    why = failures.unreachable(exc)
    if why is not None:
        return Failure("unreachable", why)
    detail = failures.first_line(str(getattr(exc, "message", "") or exc), type(exc).__name__)
    if any(words in detail for words in _NO_KEY):
        # The client refused to send the request; litellm calls that a server error.
        return Failure("no-key", detail.split(" - ", 1)[-1])
    headers = getattr(exc, "litellm_response_headers", None) or getattr(
        getattr(exc, "response", None), "headers", None
    )
    return Failure(_kind(litellm, exc), detail, failures.retry_after(headers))


_NO_KEY = ("Missing credentials", "api_key client option must be set")
"""What the OpenAI client says when it has no key to send (litellm wraps it as a 500)."""


def _kind(litellm, exc: Exception) -> str:
    """What kind of failure a litellm exception is."""
    checks = [
        ("context", "ContextWindowExceededError"),
        ("auth", "AuthenticationError"),
        ("rate-limit", "RateLimitError"),
        ("timeout", "Timeout"),
        ("not-found", "NotFoundError"),
        ("server", "InternalServerError"),
        ("server", "ServiceUnavailableError"),
        ("server", "BadGatewayError"),
        ("connection", "APIConnectionError"),
        ("bad-request", "BadRequestError"),
    ]
    for kind, name in checks:
        cls = getattr(litellm, name, None) or getattr(litellm.exceptions, name, None)
        if cls is not None and isinstance(exc, cls):
            return kind
    status = getattr(exc, "status_code", None)
    if status == 429:
        return "rate-limit"
    if isinstance(status, int) and status >= 500:
        return "server"
    return "other"
