"""Counting the map's tokens: tiktoken's cl100k_base, whose ranks file litellm ships.

tiktoken fetches that file from the network at its first use; there may be none. litellm
keeps a copy under the name tiktoken's own cache gives it (the SHA-1 of its URL), so it is read
from there, checked against the hash tiktoken expects, and nothing is fetched or written. When
it cannot be found, counts are estimated at four characters a token, and say so.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import types
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ESTIMATED = "token counts are estimated (4 characters a token): tiktoken's cl100k file is missing"
"""The note shown with a map whose tokens could only be estimated."""


@dataclass(frozen=True)
class Tokenizer:
    """How the map's tokens are counted."""

    count: Callable[[str], int]
    exact: bool
    """False when count only estimates (no tokenizer file was found)."""


def estimate(text: str) -> int:
    """About how many tokens text is: a quarter of its characters, rounded up."""
    return (len(text) + 3) // 4


@cache
def get_tokenizer() -> Tokenizer:
    """cl100k_base when its file can be found offline, else the estimate; loaded once."""
    try:
        encoding = _cl100k()
    except (ImportError, OSError, ValueError, AttributeError, TypeError):
        return Tokenizer(estimate, exact=False)
    return Tokenizer(lambda text: len(encoding.encode_ordinary(text)), exact=True)


def _cl100k():
    import tiktoken
    from tiktoken_ext import openai_public

    # tiktoken's own constructor supplies the pattern and the special tokens; only where its
    # ranks come from is replaced, without changing the module for anyone else.
    constructor = types.FunctionType(
        openai_public.cl100k_base.__code__,
        {**vars(openai_public), "load_tiktoken_bpe": _bundled_ranks},
    )
    return tiktoken.Encoding(**constructor())


def _bundled_ranks(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """The BPE ranks tiktoken would fetch from url, read from litellm's copy; OSError when it
    is missing, ValueError when it is not the file tiktoken expects."""
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("litellm is not installed")
    folder = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
    data = (folder / hashlib.sha1(url.encode()).hexdigest()).read_bytes()
    if expected_hash and hashlib.sha256(data).hexdigest() != expected_hash:
        raise ValueError(f"litellm's copy of {url} is not the file tiktoken expects")
    ranks = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks
