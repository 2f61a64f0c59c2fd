"""The languages of the benchmark, one row each: every caller asks get_language(name)."""

from __future__ import annotations

from exercism.language import Language
from exercism.languages import cpp, go, java, javascript, python, rust

LANGUAGES: dict[str, Language] = {
    row.name: row
    for row in (
        cpp.LANGUAGE,
        go.LANGUAGE,
        java.LANGUAGE,
        javascript.LANGUAGE,
        python.LANGUAGE,
        rust.LANGUAGE,
    )
}
"""Each language by name, in the order aider's polyglot set lists them."""


def get_language(name: str) -> Language:
    """The language of that name; ValueError listing the valid ones if there is none."""
    try:
        return LANGUAGES[name]
    except KeyError:
        raise ValueError(f"unknown language {name!r}: choose from {', '.join(LANGUAGES)}") from None


__all__ = ["LANGUAGES", "Language", "get_language"]
