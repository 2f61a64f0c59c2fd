"""Models over the network: straight to a provider (a row of the providers table, or any
OpenAI-compatible server), or through litellm (which only `via_litellm` imports, lazily);
get_model() chooses the route."""

from coder.seams.llm.direct import DirectModel
from coder.seams.llm.routes import get_model, is_direct, preload_for
from coder.seams.llm.settings import ALIASES, ModelSettings, resolve
from coder.seams.llm.via_litellm import LiteLLMModel

__all__ = [
    "ALIASES",
    "DirectModel",
    "LiteLLMModel",
    "ModelSettings",
    "get_model",
    "is_direct",
    "preload_for",
    "resolve",
]
