"""Hosted and local models through litellm: the only module that imports it.

litellm takes seconds to import, so it is loaded on the first request, once.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from coder.errors import ModelError
from coder.seams.model import Completion, Request, Usage
from editformats import ToolCall

ALIASES = {
    "sonnet": "anthropic/claude-sonnet-4-5",
    "haiku": "anthropic/claude-haiku-4-5",
    "opus": "anthropic/claude-opus-4-1",
    "4o": "gpt-4o",
    "4o-mini": "gpt-4o-mini",
    "gpt5": "gpt-5",
    "deepseek": "deepseek/deepseek-chat",
    "gemini": "gemini/gemini-2.5-pro",
    "flash": "gemini/gemini-2.5-flash",
}
"""Short names for models people use often."""


@dataclass(frozen=True)
class ModelSettings:
    """How to reach a model."""

    name: str
    """A litellm model name or one of ALIASES."""
    api_base: str | None = None
    """The server to call, for OpenAI-compatible or local servers."""
    api_key: str | None = None
    """A key to use instead of the provider's environment variable."""
    timeout: float = 600.0
    """Seconds to wait for a reply before giving up."""
    retries: int = 5
    """How many times a rate limit, server error or timeout is retried."""
    backoff: float = 1.0
    """Seconds before the first retry; doubled each time."""
    max_tokens: int | None = None
    """The longest reply to accept; a small local model can otherwise loop until its context
    is full."""


@cache
def _litellm():
    # Read from the package, not the network: works offline and starts faster.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.drop_params = True
    litellm.telemetry = False
    return litellm


def resolve(name: str) -> str:
    """The litellm name of a model given by its alias or full name."""
    return ALIASES.get(name, name)


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
        litellm = _litellm()
        delay = self.settings.backoff
        for attempt in range(self.settings.retries + 1):
            streamed: list[str] = []
            try:
                return self._stream(litellm, request, on_text, streamed)
            except Exception as exc:
                kind = _kind(litellm, exc)
                if kind not in _PASSING or streamed or attempt == self.settings.retries:
                    message = _explain(kind, exc, self.name)
                    raise ModelError(message, partial="".join(streamed)) from exc
                self.on_retry(f"{_LABELS[kind]}; retrying in {delay:.0f} s")
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _stream(self, litellm, request: Request, on_text, streamed: list[str]) -> Completion:
        kwargs = {
            "model": self.name,
            "messages": [m.to_dict() for m in request.messages],
            "temperature": request.temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": self.settings.timeout,
            "num_retries": 0,
        }
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        if self.settings.api_key:
            kwargs["api_key"] = self.settings.api_key
        if request.seed is not None:
            kwargs["seed"] = request.seed
        limits = [n for n in (request.max_tokens, self.settings.max_tokens) if n]
        if limits:
            kwargs["max_tokens"] = min(limits)
        if request.tools:
            kwargs["tools"] = list(request.tools)
            if request.tool_choice is not None:
                kwargs["tool_choice"] = request.tool_choice
            elif len(request.tools) == 1:
                function = request.tools[0]["function"]["name"]
                kwargs["tool_choice"] = {"type": "function", "function": {"name": function}}
        calls: dict[int, dict] = {}
        usage = None
        interrupted = False
        finish = None
        stream = litellm.completion(**kwargs)
        try:
            for chunk in stream:
                usage = getattr(chunk, "usage", None) or usage
                if not chunk.choices:
                    continue
                finish = chunk.choices[0].finish_reason or finish
                delta = chunk.choices[0].delta
                if delta.content:
                    streamed.append(delta.content)
                    if on_text:
                        on_text(delta.content)
                for call in delta.tool_calls or []:
                    slot = calls.setdefault(
                        call.index or 0, {"name": "", "arguments": "", "id": ""}
                    )
                    if call.id:
                        slot["id"] = call.id
                    if call.function.name:
                        slot["name"] = call.function.name
                    slot["arguments"] += call.function.arguments or ""
        except KeyboardInterrupt:
            interrupted = True
        text = "".join(streamed)
        tool_calls = tuple(
            ToolCall(c["name"], c["arguments"], c["id"]) for _, c in sorted(calls.items())
        )
        usage = self._usage(litellm, usage, request, text)
        return Completion(text, tool_calls, usage, interrupted, truncated=finish == "length")

    def _usage(self, litellm, usage, request: Request, text: str) -> Usage:
        if usage is not None:
            prompt, completion = usage.prompt_tokens or 0, usage.completion_tokens or 0
        else:
            messages = [m.to_dict() for m in request.messages]
            prompt = litellm.token_counter(model=self.name, messages=messages)
            completion = litellm.token_counter(model=self.name, text=text)
        try:
            prices = litellm.cost_per_token(
                model=self.name, prompt_tokens=prompt, completion_tokens=completion
            )
            cost = sum(prices)
        except Exception:  # litellm raises many kinds for a model without a known price
            cost = None
        return Usage(prompt, completion, cost)

    def context_window(self) -> int | None:
        """The model's input token limit, when litellm knows it."""
        try:
            return _litellm().get_model_info(self.name).get("max_input_tokens")
        except Exception:  # litellm raises many kinds for a model it does not know
            return None

    def count_tokens(self, text: str) -> int:
        """Tokens of text for this model (litellm ships the tokenizers, so this works offline)."""
        return _litellm().token_counter(model=self.name, text=text)


_PASSING = {"rate-limit", "server", "timeout", "connection"}
_LABELS = {
    "rate-limit": "rate limited (429)",
    "server": "the provider had a server error",
    "timeout": "the request timed out",
    "connection": "could not reach the provider",
}


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


def _explain(kind: str, exc: Exception, model: str) -> str:
    """A one-line message for the user."""
    detail = str(getattr(exc, "message", "") or exc).strip().splitlines()
    first = detail[0][:200] if detail else type(exc).__name__
    return {
        "auth": f"the provider rejected the API key for {model}: check the key ({first})",
        "not-found": f"unknown model {model!r} ({first})",
        "context": f"the conversation is too long for {model}'s context window: use /drop,"
        " /clear or a model with a larger window",
        "timeout": f"{model} did not answer in time ({first})",
        "rate-limit": f"{model} is rate limited and retries ran out ({first})",
        "server": f"{model}'s provider kept failing ({first})",
        "connection": f"could not reach {model}'s provider ({first})",
    }.get(kind, f"{model} failed: {first}")


def dumps_tool_calls(calls: tuple[ToolCall, ...]) -> str:
    """Tool calls as JSON text, for logs and transcripts."""
    return json.dumps([{"name": c.name, "arguments": c.arguments} for c in calls], indent=1)
