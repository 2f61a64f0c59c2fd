"""Placeholders that stand for code the model did not write out, and elided lines ('...')."""

from __future__ import annotations

import re

_COMMENT = re.compile(
    r"^\s*(?:#+|//+|/\*+|<!--|--|;+|%+|\*|\{/\*|'|rem\s)\s*(.*?)\s*(?:\*/\}?|-->)?\s*$"
)
_DOTS = r"(?:\.{3,}|…)"
_PLACEHOLDER = re.compile(
    rf"^{_DOTS}"
    r"|\b(?:rest|remainder)\s+of\s+(?:the\s+)?(?:\w+\s+)?"
    r"(?:code|file|class|function|method|module|component|implementation|content|body|logic)\b"
    r"|\bexisting\s+(?:\w+\s+)?(?:code|methods|functions|implementation|content|logic|imports)\b"
    r"|\b(?:unchanged|remains? the same|stays? the same|as before|omitted|for brevity)\b"
    r"|\bsame as (?:before|above|the original)\b",
    re.IGNORECASE,
)


def is_elision(line: str) -> bool:
    """True for a line that only says 'lines skipped here': '...', '# ...', '// ...'."""
    stripped = line.strip()
    if re.fullmatch(_DOTS, stripped):
        return True
    m = _COMMENT.match(line)
    return m is not None and re.fullmatch(_DOTS, m.group(1).strip()) is not None


def is_placeholder(line: str) -> bool:
    """True for a line standing for code that is not written out ('# ... rest of code ...')."""
    if is_elision(line):
        return True
    m = _COMMENT.match(line)
    if m is None or len(m.group(1)) > 80:
        return False
    return _PLACEHOLDER.search(m.group(1)) is not None


def new_placeholders(updated: list[str], before: list[str]) -> list[str]:
    """Placeholder lines of updated that the text it replaces did not already contain."""
    existing = {line.strip() for line in before}
    return [line for line in updated if line.strip() not in existing and is_placeholder(line)]


def split_elisions(lines: list[str]) -> list[list[str]]:
    """The runs of lines between elision lines; one run when there are none."""
    runs: list[list[str]] = [[]]
    for line in lines:
        if is_elision(line):
            runs.append([])
        else:
            runs[-1].append(line)
    return runs
