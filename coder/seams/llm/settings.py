"""How to reach a model: its settings, and the short names people use for it."""

from __future__ import annotations

from dataclasses import dataclass

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
    context_window: int | None = None
    """The model's input token limit, where it is known better than litellm's map knows it
    (the local server's, or the user's --context-window); None: litellm's map, when loaded."""


def resolve(name: str) -> str:
    """The litellm name of a model given by its alias or full name."""
    return ALIASES.get(name, name)
