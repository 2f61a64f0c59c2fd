"""Prices and context windows for the direct route, from the price map litellm ships (its
`model_prices_and_context_window_backup.json`), read as data: litellm is found, never imported,
and the map is never fetched. Without litellm installed, every price is unknown.

The map is 3 MB of JSON, a tenth of a second to parse whole; it is read once, and only the
entry of a model asked about is parsed (the map lists one model per top-level key).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from coder.seams.model import Usage

MAP_NAME = "model_prices_and_context_window_backup.json"


def usage(names: tuple[str, ...], tokens: tuple[int, int]) -> Usage:
    """The usage of tokens, with their cost when the map prices the first of names it knows."""
    entry = _entry(names)
    try:
        cost = (
            tokens[0] * float(entry["input_cost_per_token"])
            + tokens[1] * float(entry["output_cost_per_token"])
            if entry
            else None
        )
    except (KeyError, TypeError, ValueError):
        cost = None
    return Usage(*tokens, cost)


def context_window(names: tuple[str, ...]) -> int | None:
    """The input token limit of the first of names the map knows (None: unknown)."""
    return _int((_entry(names) or {}).get("max_input_tokens"))


def max_output(names: tuple[str, ...]) -> int | None:
    """The longest reply the first of names the map knows may give (None: unknown)."""
    return _int((_entry(names) or {}).get("max_output_tokens"))


def _entry(names: tuple[str, ...]) -> dict | None:
    for name in names:
        entry = _lookup(name)
        if entry is not None:
            return entry
    return None


@cache
def _lookup(name: str) -> dict | None:
    text = _text()
    if not text:
        return None
    if _whole.cache_info().currsize:  # parsed whole already
        return _whole().get(name)
    # A top-level key stands on a line of its own, indented by four spaces, as litellm writes
    # the file; a file written otherwise is parsed whole.
    if not text.startswith('{\n    "'):
        return _whole().get(name)
    at = text.find(f"\n    {json.dumps(name)}: {{")
    if at < 0:
        return None
    try:
        entry, _ = json.JSONDecoder().raw_decode(text, text.index("{", at))
    except ValueError:
        return _whole().get(name)
    return entry if isinstance(entry, dict) else None


@cache
def _whole() -> dict:
    try:
        data = json.loads(_text())
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


@cache
def _text() -> str:
    """The map's text, or "" when litellm is not installed or ships no map."""
    path = map_path()
    if path is None:
        return ""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def map_path() -> Path | None:
    """Where litellm's price map is installed, found without importing litellm."""
    from importlib.util import find_spec

    try:
        spec = find_spec("litellm")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / MAP_NAME
        if path.is_file():
            return path
    return None


def _int(value) -> int | None:
    return value if isinstance(value, int) and value > 0 else None
