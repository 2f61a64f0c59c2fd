"""Which way a model is reached: straight to an OpenAI-compatible server (`openai/NAME` with an
API base: no litellm, no import to wait for), or through litellm (every other model, or any
model when asked)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from urllib.parse import urlsplit

from coder.seams.llm import via_litellm as litellm_route
from coder.seams.llm.direct import DirectModel
from coder.seams.llm.settings import ModelSettings, resolve
from coder.seams.llm.via_litellm import LiteLLMModel
from coder.seams.model import Model

KEY = "OPENAI_API_KEY"
"""The variable holding the key of an OpenAI-compatible server (as for litellm)."""


def is_direct(name: str, api_base: str | None, environ: Mapping[str, str]) -> bool:
    """True when requests to the model named go straight to its server: an `openai/` model
    with an API base that no proxy setting in environ sends through a proxy."""
    return (
        resolve(name).startswith("openai/") and bool(api_base) and not _proxied(api_base, environ)
    )


def get_model(
    settings: ModelSettings,
    environ: Mapping[str, str],
    via_litellm: bool = False,
    on_retry: Callable[[str], None] | None = None,
) -> Model:
    """The model settings describe, on its route (through litellm when via_litellm says so);
    the direct route takes the key from environ when settings have none."""
    if not via_litellm and is_direct(settings.name, settings.api_base, environ):
        key = settings.api_key or environ.get(KEY)
        return DirectModel(replace(settings, api_key=key), on_retry)
    return LiteLLMModel(settings, on_retry)


def preload_for(
    names: Iterable[str], api_base: str | None, environ: Mapping[str, str], via_litellm: bool
) -> bool:
    """Start importing litellm in the background when one of the models named takes its
    route; whether it started."""
    needed = [n for n in names if via_litellm or not is_direct(n, api_base, environ)]
    if needed:
        litellm_route.preload()
    return bool(needed)


def _proxied(url: str, environ: Mapping[str, str]) -> bool:
    """True when a proxy variable (https_proxy, all_proxy, ...) applies to url: the direct
    route does not speak to proxies, litellm (httpx) does."""
    proxies = {
        k.lower().removesuffix("_proxy"): v
        for k, v in environ.items()
        if v and k.lower().endswith("_proxy")
    }
    parts = urlsplit(url)
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return False
    from urllib.request import proxy_bypass_environment

    return not proxy_bypass_environment(parts.netloc, {"no": proxies.get("no", "")})
