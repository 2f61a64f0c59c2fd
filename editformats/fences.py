"""Reading the markdown around edits: reasoning sections, code fences and file names in prose."""

from __future__ import annotations

import re
from dataclasses import dataclass

from editformats import paths

_TAG = r"(?:think|thinking|reasoning|thinking-content-[0-9a-f]*)"
# Models and transcripts do not always close the tag they opened: any closing tag ends it.
_THINKING = re.compile(rf"<{_TAG}>.*?</{_TAG}>\s*", re.DOTALL | re.IGNORECASE)
_OPENER = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([^`\s]*)(.*)$")
_SOURCE_OPEN = re.compile(r"^\s*<source(?:\s[^>]*)?>\s*$", re.IGNORECASE)
_SOURCE_CLOSE = re.compile(r"^\s*</source>\s*$", re.IGNORECASE)
_MENTION = re.compile(r"`([^`\n]+)`|\*\*([^*\n]+)\*\*|([\w./\\-]+\.[A-Za-z0-9_+-]{1,12})\b")
SHELL_LANGUAGES = frozenset(
    {"bash", "sh", "shell", "console", "zsh", "powershell", "ps1", "cmd", "bat", "fish", "terminal"}
)


def prepare(text: str) -> str:
    """Unify line endings and drop reasoning sections, whose edits are drafts."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _THINKING.sub("", text)


@dataclass(frozen=True)
class Fence:
    """A fenced block of the reply: lines [start, end) are its content."""

    opener: int
    """Index of the opening line."""
    start: int
    end: int
    info: str
    """The fence's info string (usually a language)."""
    closed: bool


def opener(line: str) -> tuple[str, str] | None:
    """The fence marker and info string when the line opens a fence."""
    m = _OPENER.match(line)
    if not m:
        return None
    return m.group(1), (m.group(2) + m.group(3)).strip()


def is_closer(line: str, marker: str) -> bool:
    """True when the line closes a fence opened with marker."""
    stripped = line.strip()
    return (
        len(stripped) >= len(marker)
        and set(stripped) == {marker[0]}
        and len(line) - len(line.lstrip()) <= 3
    )


def find_fences(lines: list[str]) -> list[Fence]:
    """The top-level fenced blocks, treating a fence with a language inside one as nested."""
    fences: list[Fence] = []
    i = 0
    while i < len(lines):
        if _SOURCE_OPEN.match(lines[i]):
            j = next((k for k in range(i + 1, len(lines)) if _SOURCE_CLOSE.match(lines[k])), None)
            end = len(lines) if j is None else j
            fences.append(Fence(i, i + 1, end, "", j is not None))
            i = end + 1
            continue
        found = opener(lines[i])
        if not found:
            i += 1
            continue
        marker, info = found
        depth, j = 0, i + 1
        while j < len(lines):
            if is_closer(lines[j], marker):
                if depth == 0:
                    break
                depth -= 1
            elif len(marker) == 3 and (inner := opener(lines[j])) and inner[1]:
                depth += 1
            j += 1
        fences.append(Fence(i, i + 1, j, info, j < len(lines)))
        i = j + 1
    return fences


def filename_before(lines: list[str], index: int, lookback: int = 3) -> str:
    """The file name written on one of the few lines above index (fence lines skipped), or ''."""
    seen = 0
    k = index - 1
    while k >= 0 and seen < lookback:
        line = lines[k]
        if not line.strip():
            k -= 1
            continue
        found = opener(line)
        if found:
            name = info_filename(found[1])
            if name:
                return name
            k -= 1
            seen += 1
            continue
        name = paths.clean(line)
        if paths.looks_like_path(name):
            return name
        if is_closer(line, "```") or is_closer(line, "~~~"):
            return ""
        return ""
    return ""


def info_filename(info: str) -> str:
    """A file name carried in a fence's info string, as in ```python:src/a.py or ```src/a.py."""
    for part in re.split(r"[:\s]", info)[::-1]:
        name = paths.clean(part)
        if "." in name.rsplit("/", 1)[-1] and paths.looks_like_path(name):
            return name
    return ""


def mentions(text: str) -> tuple[str, ...]:
    """File-like names the prose mentions, the most recent first."""
    found: list[str] = []
    for m in _MENTION.finditer(text):
        name = paths.clean(next(g for g in m.groups() if g))
        if paths.looks_like_path(name) and name not in found:
            found.append(name)
    return tuple(reversed(found))
