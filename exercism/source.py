"""A solution's source as its compiler reads it, for the checks made before its tests run
(exercism/refusals.py): Java's unicode escapes decoded, C++'s line continuations joined and
digraphs spelled out, comments taken out and string literals emptied, so that neither a
comment nor a string hides code from a check, nor makes code of what is not."""

from __future__ import annotations

import re

C_LIKE = re.compile(
    r"""//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])'""",
    re.S,
)
"""Comments (an unclosed one runs to the end) and string and character literals."""
RUST = re.compile(
    r"""//[^\n]*|/\*.*?(?:\*/|\Z)|b?r(\#*)".*?"\1|b?"(?:\\.|[^"\\])*"?|b?'(?:\\.|[^'\\\n])'""",
    re.S,
)
"""Likewise, with raw strings (r#"..."#), strings over lines, and lifetimes left alone."""
UNICODE_ESCAPE = re.compile(r"\\u+([0-9a-fA-F]{4})")
DIGRAPHS = (("%:%:", "##"), ("%:", "#"), ("<%", "{"), ("%>", "}"), ("<:", "["), (":>", "]"))


def _blank(found: re.Match) -> str:
    """A comment becomes a space (its lines kept), a literal an empty one."""
    text = found.group(0)
    if text.startswith(("//", "/*")):
        return " " + "\n" * text.count("\n")
    return '""' + "\n" * text.count("\n")


def _uncommented(found: re.Match) -> str:
    """A comment becomes a space (its lines kept), a literal stays."""
    text = found.group(0)
    return " " + "\n" * text.count("\n") if text.startswith(("//", "/*")) else text


def cpp(text: str, literals: bool = False) -> str:
    """C++ source with continuations joined, digraphs spelled out, comments out, and its
    literals emptied unless asked for (an #include's file name)."""
    text = re.sub(r"\\\r?\n", "", text)
    for digraph, spelled in DIGRAPHS:
        text = text.replace(digraph, spelled)
    return C_LIKE.sub(_uncommented if literals else _blank, text)


def java(text: str) -> str:
    """Java source with unicode escapes decoded (javac does so first), comments and literals
    out."""
    return C_LIKE.sub(_blank, UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text))


def rust(text: str) -> str:
    """Rust source with comments and literals out."""
    return RUST.sub(_blank, text)


GO = re.compile(C_LIKE.pattern + r"|`[^`]*`?", re.S)
"""C's, with raw strings in backquotes."""


def go(text: str) -> str:
    """Go source with comments and literals (raw strings in backquotes too) out."""
    return GO.sub(_blank, text)
