"""Reading the markdown around edits: reasoning sections, code fences and file names in prose.

Everything here is linear in the size of the reply: no pattern can backtrack over a long line,
and reasoning tags are paired in one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from editformats import paths
from editformats.errors import ReplyError

_TAG = re.compile(
    r"<(?P<close>/?)(?:think|thinking|thought|reasoning|thinking-content-[0-9a-f]{0,64})>",
    re.IGNORECASE,
)
# The lines aider's transcripts show in place of the tags: "> Thinking ..." to "> ... done
# thinking." (and, in earlier versions, "► **THINKING**" to "► **ANSWER**"). Searched for
# apart from the tags, and only when the text holds them: a pattern anchored at line starts
# cannot skip ahead to a '<' as the tags' can.
_SHOWN = re.compile(
    r"^(?:> Thinking \.\.\.|► \*\*THINKING\*\*"
    r"|(?P<close>> \.\.\. done thinking\.|► \*\*ANSWER\*\*))[ \t]*$",
    re.MULTILINE,
)
_SHOWN_HINTS = ("> Thinking ...", "► **THINKING**")
_SOURCE_OPEN = re.compile(r"<source>[\w+#.-]{0,32}\s*", re.IGNORECASE)
_SOURCE_CLOSE = re.compile(r"</source>\s*", re.IGNORECASE)
# Backticks, bold, or a bare word that has an extension: each alternative is bounded by
# characters it cannot contain, so no match backtracks.
_MENTION = re.compile(r"`([^`\n]{1,300})`|\*\*([^*\n]{1,300})\*\*|([\w./\\+-]+)")
MAX_FENCES = 2_000
"""Fenced blocks one reply may hold."""
SHELL_LANGUAGES = frozenset(
    {"bash", "sh", "shell", "console", "zsh", "powershell", "ps1", "cmd", "bat", "fish", "terminal"}
)


def prepare(text: str) -> str:
    """Unify line endings and drop reasoning sections, whose edits are drafts."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _drop_reasoning(text)


def _drop_reasoning(text: str) -> str:
    """Text without each <think>...</think> section (any closing tag ends the open one, as
    models do not always close the tag they opened); an opening tag never closed is kept."""
    kept: list[str] = []
    at = 0
    opened = None
    for tag in _tags(text):
        closing = bool(tag.group("close"))
        if opened is None and not closing:
            opened = tag
        elif opened is not None and closing:
            kept.append(text[at : opened.start()])
            end = tag.end()
            while end < len(text) and text[end] in " \t\n":
                end += 1
            at = end
            opened = None
    kept.append(text[at:])
    return "".join(kept)


def _tags(text: str) -> list[re.Match]:
    """The reasoning tags of text, and the lines shown in their place, in order."""
    tags = list(_TAG.finditer(text))
    if any(hint in text for hint in _SHOWN_HINTS):
        tags = sorted([*tags, *_SHOWN.finditer(text)], key=lambda tag: tag.start())
    return tags


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
    marker: str = "```"
    """The opening run of backticks or tildes, or "<source>"."""


def opener(line: str, strict: bool = False) -> tuple[str, str] | None:
    """The fence marker and info string when the line opens a fence.

    Strict: only at the start of the line, as the edit formats' prompts teach. Otherwise up to
    three spaces of indentation are allowed, as in CommonMark.
    """
    body = line if strict else _unindent(line)
    if body is None or not body.startswith(("```", "~~~")):
        return None
    char = body[0]
    size = len(body) - len(body.lstrip(char))
    info = body[size:].strip()
    if char == "`" and "`" in info:
        return None  # inline code such as ```x```, not a fence
    return body[:size], info


def is_closer(line: str, marker: str, strict: bool = False) -> bool:
    """True when the line closes a fence opened with marker."""
    body = line if strict else _unindent(line)
    if body is None:
        return False
    stripped = body.rstrip()
    return len(stripped) >= len(marker) and stripped == marker[0] * len(stripped)


def is_fence_line(line: str) -> bool:
    """True for a line that opens or closes a fence of backticks or tildes (indented or not)."""
    return opener(line) is not None


def _unindent(line: str) -> str | None:
    """The line without up to three leading spaces; None when it is indented more."""
    stripped = line.lstrip(" ")
    return stripped if len(line) - len(stripped) <= 3 else None


def source_opener(line: str) -> bool:
    """True for a line holding only <source> or <source>language."""
    return _SOURCE_OPEN.fullmatch(line) is not None


def find_fences(lines: list[str]) -> list[Fence]:
    """The top-level fenced blocks, each opened at the start of a line.

    Inside a fence of three backticks, a fence that names a language opens a nested block (a
    markdown file's code example), so its bare closing line does not end the outer fence.
    ReplyError when there are more than MAX_FENCES: such a reply is not a set of edits.
    """
    fences: list[Fence] = []
    i = 0
    while i < len(lines):
        if lines[i][:1] not in ("`", "~", "<"):
            i += 1
            continue
        if len(fences) >= MAX_FENCES:
            raise ReplyError(
                f"Your reply holds more than {MAX_FENCES:,} fenced blocks; send fewer, larger"
                " edits."
            )
        if source_opener(lines[i]):
            j = i + 1
            while j < len(lines) and not _SOURCE_CLOSE.fullmatch(lines[j]):
                j += 1
            info = lines[i].strip()[len("<source>") :]
            fences.append(Fence(i, i + 1, j, info, j < len(lines), "<source>"))
            i = j + 1
            continue
        found = opener(lines[i], strict=True)
        if not found:
            i += 1
            continue
        marker, info = found
        depth, j = 0, i + 1
        while j < len(lines):
            if is_closer(lines[j], marker, strict=True):
                if depth == 0:
                    break
                depth -= 1
            elif len(marker) == 3 and (inner := opener(lines[j], strict=True)) and inner[1]:
                depth += 1
            j += 1
        fences.append(Fence(i, i + 1, j, info, j < len(lines), marker))
        i = j + 1
    return fences


def filename_before(lines: list[str], index: int, skip_fence: bool = False) -> str:
    """The file name written on the line above index, or ''.

    With skip_fence, one opening fence line right above is passed over (the name goes above
    the fence that holds a search/replace block); a second fence line there closes an
    earlier block, so nothing above it names this one.
    """
    k = _nonblank_before(lines, index)
    if k < 0:
        return ""
    found = opener(lines[k])
    if found or source_opener(lines[k]):
        name = info_filename(found[1]) if found else ""
        if name or not skip_fence:
            return name
        k = _nonblank_before(lines, k)
        if k < 0 or opener(lines[k]) or source_opener(lines[k]):
            return ""
    name = paths.clean(lines[k])
    if paths.looks_like_path(name):
        return name
    return _name_with_remark(lines[k]) or _heading_name(lines[k])


_WHOLE_REMARKS = frozenset(
    {
        "new", "file", "updated", "update", "modified", "changed", "complete", "full", "entire",
        "whole", "final", "fixed", "created", "rewritten", "version", "content", "contents",
        "code", "listing", "the",
    }
)  # fmt: skip
"""Words of a remark after a file name that say the block is the file ("(new file)", "(full
updated version)"); another remark ("(excerpt)", "(lines 10-20)") may say it is a part."""


def _name_with_remark(line: str) -> str:
    """The file name of a line that follows it with a remark in parentheses saying the block
    is the file ("`new.py` (new file)"), when the name has an extension; else ''."""
    text = line.strip().rstrip(":").rstrip()
    cut = text.rfind(" (")
    if not text.endswith(")") or cut < 0 or "(" in text[cut + 2 :] or ")" in text[cut + 2 : -1]:
        return ""
    if not set(text[cut + 2 : -1].lower().split()) <= _WHOLE_REMARKS:
        return ""
    name = paths.clean(text[:cut])
    base = name.rsplit("/", 1)[-1]
    return name if paths.has_extension(base) and paths.looks_like_path(name) else ""


def intro_before(lines: list[str], index: int) -> str:
    """The line of prose right above index, passing over one opening fence line ('' when a
    fence or nothing stands there): the sentence that introduces a block."""
    k = _nonblank_before(lines, index)
    if k >= 0 and opener(lines[k]):
        k = _nonblank_before(lines, k)
    if k < 0 or opener(lines[k]) or source_opener(lines[k]):
        return ""
    return lines[k]


def _heading_name(line: str) -> str:
    """The file a markdown heading names with words before it ("### Updated coeffs.py"): its
    last word, when that is a file name with an extension; else ''."""
    words = line.strip().split()
    if not line.lstrip().startswith("#") or len(words) < 2:
        return ""
    last = paths.clean(words[-1])
    base = last.rsplit("/", 1)[-1]
    return last if paths.has_extension(base) and paths.looks_like_path(last) else ""


def spaced_name_before(lines: list[str], index: int) -> str:
    """A name with spaces written alone on the line above index ("docs/user guide.md"), or ''.
    It may be prose ("Here is the new b.py"): whoever reads it must check that it exists."""
    k = _nonblank_before(lines, index)
    if k < 0 or opener(lines[k]) or source_opener(lines[k]):
        return ""
    name = paths.clean(lines[k])
    return name if paths.looks_like_spaced_path(name) else ""


def _nonblank_before(lines: list[str], index: int, most: int = 20) -> int:
    """The index of the last non-blank line within most lines above index, or -1."""
    for k in range(index - 1, max(-1, index - 1 - most), -1):
        if lines[k].strip():
            return k
    return -1


def info_filename(info: str) -> str:
    """A file name carried in a fence's info string, as in ```python:src/a.py or ```src/a.py."""
    if len(info) > paths.MAX_NAME:
        return ""
    for part in re.split(r"[:\s]", info)[::-1]:
        name = paths.clean(part)
        if "." in name.rsplit("/", 1)[-1] and paths.looks_like_path(name):
            return name
    return ""


def nearest_mentions(lines: list[str], start: int, end: int, most: int = 40) -> tuple[str, ...]:
    """The file names mentioned by the last paragraph of lines[start:end] that mentions any
    (a heading or a sentence introducing a block, with a remark between them), within most
    lines above end; ()."""
    start = max(start, end - most)
    k = end
    while k > start:
        bottom = k
        while k > start and lines[k - 1].strip():
            k -= 1
        if bottom > k and (found := mentions("\n".join(lines[k:bottom]))):
            return found
        while k > start and not lines[k - 1].strip():
            k -= 1
    return ()


def mentions(text: str, most: int = 20) -> tuple[str, ...]:
    """File-like names the prose mentions, in the order they first appear (the first most)."""
    found: dict[str, None] = {}
    for m in _MENTION.finditer(text):
        bare = m.group(3)
        if bare is not None and "." not in bare:
            continue  # a bare word names a file only with an extension: the common word, fast
        if len(found) >= most:
            break
        raw = bare or m.group(1) or m.group(2)
        if len(raw) > paths.MAX_NAME:
            continue
        name = paths.clean(raw)
        if m.group(3) is not None and not paths.has_extension(name.rsplit("/", 1)[-1]):
            continue
        if paths.looks_like_path(name):
            found.setdefault(name, None)
    return tuple(found)
