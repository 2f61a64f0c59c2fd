"""The hosted providers the direct route speaks to, one row each: the wire format, the base
URL, the variables holding the key and overriding the base URL, and what each rejects."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from coder.errors import UsageError
from coder.seams.llm.settings import resolve


@dataclass(frozen=True)
class Quirks:
    """What a provider's API does not take as OpenAI's does."""

    seed: str | None = "seed"
    """The field the seed goes in (Mistral's is random_seed); None: not sent."""
    stream_options: bool = True
    """Whether it takes stream_options (asking for the usage at the end of a stream)."""
    reasoning: str = ""
    """A pattern of the names of models that reason (OpenAI's o-series and GPT-5): they reject
    any temperature but the default and take max_completion_tokens, not max_tokens."""
    name_prefix: str = ""
    """Put before a model name holding no "/" (Fireworks' accounts/fireworks/models/)."""


@dataclass(frozen=True)
class Provider:
    """A provider reached without litellm."""

    name: str
    """Its litellm prefix: `NAME/model`."""
    wire: str
    """The API it speaks: "openai" (chat completions) or "anthropic" (Messages)."""
    base_url: str
    """Where its API is, unless a base-URL variable or --api-base says otherwise."""
    keys: tuple[str, ...]
    """The variables its API key may be in, the first set wins."""
    bases: tuple[str, ...]
    """The variables that may point it at another base URL (a proxy, a local fake)."""
    names: str = ""
    """A pattern of the bare model names that are its (gpt-4o, claude-sonnet-4-5)."""
    quirks: Quirks = field(default_factory=Quirks)


_OPENAI_REASONING = r"^(o\d|gpt-5)"
PROVIDERS = {
    p.name: p
    for p in (
        Provider(
            "openai",
            "openai",
            "https://api.openai.com/v1",
            ("OPENAI_API_KEY",),
            ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
            names=r"^(gpt-|chatgpt-|o\d($|-))",
            quirks=Quirks(reasoning=_OPENAI_REASONING),
        ),
        Provider(
            "anthropic",
            "anthropic",
            "https://api.anthropic.com",
            ("ANTHROPIC_API_KEY",),
            ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_BASE"),
            names=r"^claude-",
        ),
        Provider(
            "deepseek",
            "openai",
            "https://api.deepseek.com",
            ("DEEPSEEK_API_KEY",),
            ("DEEPSEEK_API_BASE",),
        ),
        Provider(
            "openrouter",
            "openai",
            "https://openrouter.ai/api/v1",
            ("OPENROUTER_API_KEY",),
            ("OPENROUTER_API_BASE",),
        ),
        Provider(
            "groq",
            "openai",
            "https://api.groq.com/openai/v1",
            ("GROQ_API_KEY",),
            ("GROQ_API_BASE",),
        ),
        Provider("xai", "openai", "https://api.x.ai/v1", ("XAI_API_KEY",), ("XAI_API_BASE",)),
        Provider(
            "mistral",
            "openai",
            "https://api.mistral.ai/v1",
            ("MISTRAL_API_KEY",),
            ("MISTRAL_API_BASE",),
            # Mistral answers 422 "Extra inputs are not permitted" to seed and stream_options
            # (it sends the usage at the end of a stream unasked).
            quirks=Quirks(seed="random_seed", stream_options=False),
        ),
        Provider(
            "together_ai",
            "openai",
            "https://api.together.xyz/v1",
            ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"),
            ("TOGETHERAI_API_BASE",),
        ),
        Provider(
            "fireworks_ai",
            "openai",
            "https://api.fireworks.ai/inference/v1",
            ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
            ("FIREWORKS_AI_API_BASE", "FIREWORKS_API_BASE"),
            quirks=Quirks(name_prefix="accounts/fireworks/models/"),
        ),
        Provider(
            "gemini",
            "openai",
            "https://generativelanguage.googleapis.com/v1beta/openai",
            ("GEMINI_API_KEY",),
            ("GEMINI_API_BASE",),
        ),
    )
}
"""Every provider the direct route knows, by litellm prefix; any other goes through litellm."""
BASE_VARIABLES = frozenset(v for p in PROVIDERS.values() for v in p.bases)
"""Every variable that moves a provider's requests (and key) elsewhere."""


@dataclass(frozen=True)
class Target:
    """Where one model's requests go on the direct route."""

    provider: Provider
    model: str
    """The name the provider knows the model by."""
    base_url: str
    key: str | None
    source: str
    """Where base_url comes from: "--api-base", a variable's name, or "" (the provider's own)."""


def find(name: str) -> tuple[Provider, str] | None:
    """The provider of the model named (by prefix, or a bare name it is known by) and the name
    it knows the model by; None for a model only litellm reaches."""
    full = resolve(name)
    prefix, slash, rest = full.partition("/")
    if slash and prefix in PROVIDERS and rest:
        provider = PROVIDERS[prefix]
    else:
        provider = next(
            (p for p in PROVIDERS.values() if p.names and re.match(p.names, full)), None
        )
        rest = full
    if provider is None:
        return None
    if provider.quirks.name_prefix and "/" not in rest:
        rest = provider.quirks.name_prefix + rest
    return provider, rest


def target(
    name: str, api_base: str | None, api_key: str | None, environ: Mapping[str, str]
) -> Target | None:
    """Where the model named goes: --api-base, else the provider's base-URL variable, else its
    own URL; the key given, else the provider's variable. None: only litellm reaches it."""
    found = find(name)
    if found is None:
        return None
    provider, model = found
    key = api_key or _first(environ, provider.keys)
    if api_base:
        return Target(provider, model, api_base, key, "--api-base")
    variable = next((v for v in provider.bases if environ.get(v)), None)
    if variable is not None:
        return Target(provider, model, environ[variable], key, variable)
    return Target(provider, model, provider.base_url, key, "")


def _first(environ: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    return next((environ[n] for n in names if environ.get(n)), None)


def checked(where: Target) -> Target:
    """where, when its base URL is an http:// or https:// URL; else UsageError naming whence
    it came."""
    parts = urlsplit(where.base_url)
    if parts.scheme in ("http", "https") and parts.hostname:
        try:
            parts.port  # noqa: B018 (a port that is not a number raises)
            return where
        except ValueError:
            pass
    raise UsageError(f"{where.source} {where.base_url!r} is not an http:// or https:// URL")
