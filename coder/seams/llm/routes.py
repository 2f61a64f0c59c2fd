"""Which way a model is reached: straight to its provider (a row of the providers table, by its
prefix or a name it is known by, or an `openai/NAME` model with an API base: no litellm, no
import to wait for), or through litellm (every other model, any model when asked, and a model
behind a proxy the direct route does not speak to)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from coder.seams.llm import proxy as proxies
from coder.seams.llm import via_litellm as litellm_route
from coder.seams.llm.direct import DirectModel
from coder.seams.llm.providers import Target, checked, target
from coder.seams.llm.settings import ModelSettings
from coder.seams.llm.via_litellm import LiteLLMModel
from coder.seams.model import Model


def is_direct(name: str, api_base: str | None, environ: Mapping[str, str]) -> bool:
    """True when requests to the model named go straight to its provider."""
    return _direct(name, api_base, None, environ) is not None


def get_model(
    settings: ModelSettings,
    environ: Mapping[str, str],
    via_litellm: bool = False,
    on_retry: Callable[[str], None] | None = None,
) -> Model:
    """The model settings describe, on its route (through litellm when via_litellm says so);
    the direct route takes the key and base URL from environ when settings have none."""
    if not via_litellm:
        found = _direct(settings.name, settings.api_base, settings.api_key, environ)
        if found is not None:
            where, proxy = found
            direct = replace(settings, api_base=where.base_url, api_key=where.key)
            return DirectModel(direct, on_retry, where.provider, proxy)
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


def _direct(
    name: str, api_base: str | None, api_key: str | None, environ: Mapping[str, str]
) -> tuple[Target, proxies.Proxy | None] | None:
    """Where the model named goes on the direct route and through which proxy; None when it
    takes litellm's."""
    where = target(name, api_base, api_key, environ)
    if where is None:
        return None
    where = checked(where)
    try:
        return where, proxies.for_url(where.base_url, environ)
    except proxies.Unsupported:
        return None  # litellm (httpx) speaks to more kinds of proxy
