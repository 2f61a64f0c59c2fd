"""Placeholders that stand for code the model did not write out, and elided lines ('...')."""

from __future__ import annotations

import re

_LONGEST_COMMENT = 300
"""A longer line is code or prose, never a placeholder comment."""
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
    body = _comment_body(stripped)
    return body is not None and re.fullmatch(_DOTS, body) is not None


def is_placeholder(line: str) -> bool:
    """True for a line standing for code that is not written out ('# ... rest of code ...')."""
    if is_elision(line):
        return True
    body = _comment_body(line.strip())
    if body is None or len(body) > 80:
        return False
    return _PLACEHOLDER.search(body) is not None


def _comment_body(stripped: str) -> str | None:
    """The text of a one-line comment in any common syntax (#, //, /* */, <!-- -->, --, ;, %,
    *, ', rem), or None when the line is not one. String tests only: any line costs one look."""
    if not stripped or len(stripped) > _LONGEST_COMMENT:
        return None
    lowered = stripped[:4].lower()
    if stripped.startswith(("<!--", "{/*")):
        body = stripped[4:] if stripped.startswith("<!--") else stripped[3:]
    elif stripped.startswith("/*"):
        body = stripped[1:].lstrip("*")
    elif stripped.startswith("//"):
        body = stripped.lstrip("/")
    elif stripped.startswith("--"):
        body = stripped[2:]
    elif stripped[0] in "#;%":
        body = stripped.lstrip(stripped[0])
    elif stripped[0] in "*'":
        body = stripped[1:]
    elif lowered in ("rem ", "rem\t"):
        body = stripped[4:]
    else:
        return None
    body = body.strip()
    for end in ("*/}", "*/", "-->"):
        if body.endswith(end):
            return body[: -len(end)].rstrip()
    return body


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
