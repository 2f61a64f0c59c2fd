"""Models over the network, through litellm (which only `via_litellm` imports, lazily)."""

from coder.seams.llm.settings import ALIASES, ModelSettings, resolve
from coder.seams.llm.via_litellm import LiteLLMModel

__all__ = ["ALIASES", "LiteLLMModel", "ModelSettings", "resolve"]
