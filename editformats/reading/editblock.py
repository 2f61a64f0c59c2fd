"""Reading search/replace blocks (ORIGINAL/UPDATED or SEARCH/REPLACE markers) out of a reply.

A block is a head line (<<<<<<< SEARCH), the text to find, a divider (=======), the
replacement, and a tail (>>>>>>> REPLACE). Markers are recognised by plain string tests, so a
long line costs one look. Markdown underlines (=====) inside a block are content: a divider
of exactly seven = wins over other lengths, and when several of those stand in a block the
middle one divides (the text to find and its replacement hold the same underlines). As other
tools read it, a second divider also ends the replacement; when the tail is missing, the
closing fence ends the block. A block that runs into the next one is an error, and one that
runs to the end of the reply was cut off. One pass over the lines, in order.
"""

from __future__ import annotations

from editformats import paths
from editformats.edit import Edit, check_count
from editformats.errors import ReplyError, truncated
from editformats.reading import fences


def is_head(line: str) -> bool:
    """True for a line such as '<<<<<<< SEARCH' that opens a block (5 to 9 '<', then any
    word, as in ORIGINAL, HEAD or a git conflict's branch)."""
    return _marker(line, "<")


def is_tail(line: str) -> bool:
    """True for a line such as '>>>>>>> REPLACE' that closes a block."""
    return _marker(line, ">")


def is_divider(line: str) -> bool:
    """True for a line of 5 to 9 '=' (optionally followed by REPLACE or UPDATED)."""
    return _divider_width(line) > 0


def _marker(line: str, char: str) -> bool:
    if char * 5 not in line:
        return False
    stripped = line.strip()
    run = len(stripped) - len(stripped.lstrip(char))
    if not 5 <= run <= 9:
        return False
    rest = stripped[run:]
    return not any(c in rest for c in "<>=")


def _divider_width(line: str) -> int:
    """The number of '=' of a divider line, or 0 when the line is not one."""
    if "=====" not in line:
        return 0
    stripped = line.strip()
    run = len(stripped) - len(stripped.lstrip("="))
    rest = stripped[run:].strip().upper()
    return run if 5 <= run <= 9 and rest in ("", "REPLACE", "UPDATED") else 0


def parse_blocks(text: str) -> list[Edit]:
    """Every search/replace block of the reply, with the file name each one belongs to.

    TruncatedReply when the reply ends inside a block, or inside a fence that holds no block
    yet (it was cut off right before one).
    """
    lines = fences.prepare(text).split("\n")
    edits: list[Edit] = []
    last_path, prose_from, i = "", 0, 0
    fence, fence_line = "", 0
    while i < len(lines):
        line = lines[i]
        if not is_head(line):
            if fence and fences.is_closer(line, fence):
                fence = ""
            elif not fence and (found := fences.opener(line)):
                fence, fence_line = found[0], i
            i += 1
            continue
        path, mentions = _name(lines, i, last_path, prose_from)
        number = len(edits) + 1
        check_count(number)
        divider, stop, end = _layout(lines, i, number, fence or "```", _markup(path))
        edits.append(
            Edit(
                path=path,
                original=_text(lines[i + 1 : divider]),
                updated=_text(lines[divider + 1 : stop]),
                index=number,
                line=i + 1,
                mentions=mentions,
            )
        )
        if fence and fences.is_closer(lines[end], fence):
            fence = ""
        last_path = path
        prose_from = i = end + 1
    if fence and not _holds_block(fence_line, edits):
        raise truncated(f"the fence opened at line {fence_line + 1}")
    return edits


def _name(lines: list[str], head: int, last_path: str, prose_from: int) -> tuple[str, tuple]:
    """The file name of the block starting at head, and the names its prose mentions when it
    has none. A block without a name of its own goes on in the file of the block before it,
    unless the sentence introducing it names other files ("And the same in `b.py`:")."""
    own = fences.filename_before(lines, head, skip_fence=True)
    if own:
        return own, ()
    if last_path:
        intro = fences.mentions(fences.intro_before(lines, head))
        if not intro or _names(intro, last_path):
            return last_path, ()
        return "", intro
    return "", fences.mentions("\n".join(lines[prose_from:head]))


def _names(mentions: tuple[str, ...], path: str) -> bool:
    """True when one of the mentions is the file path names (or a file of the same name)."""
    wanted = paths.normalize(path)
    base = wanted.rsplit("/", 1)[-1]
    for mention in mentions:
        name = paths.normalize(mention)
        if name == wanted or name.rsplit("/", 1)[-1] == base:
            return True
    return False


def _holds_block(fence_line: int, edits: list[Edit]) -> bool:
    """True when a block started after the fence opened (its closing fence may be left out)."""
    return bool(edits) and edits[-1].line > fence_line


def _layout(
    lines: list[str], head: int, number: int, fence: str, markup: bool = True
) -> tuple[int, int, int]:
    """For the block starting at head: its divider, where its replacement stops, and the line
    that closes the block. Without a tail, only a bare closing line of the enclosing fence
    (or a second divider) ends the block: a fence that opens a code example does not. In a
    file that is not markup, a divider right before the tail is a second divider, not a
    heading's underline."""
    dividers: list[int] = []
    j = head + 1
    while j < len(lines) and not is_tail(lines[j]) and not is_head(lines[j]):
        if is_divider(lines[j]):
            dividers.append(j)
        j += 1
    closed = j < len(lines) and is_tail(lines[j])
    if not dividers:
        if j == len(lines):
            raise truncated(f"block {number} (line {head + 1}), before its ======= line")
        raise ReplyError(
            f"Block {number}, starting at line {head + 1} of your reply, has no ======= line"
            f" dividing the text to find from its replacement:\n{_excerpt(lines, head)}"
        )
    strong = [d for d in dividers if _divider_width(lines[d]) == 7] or dividers
    strong = [d for d in strong if not _underline(lines, d, markup)] or strong
    if len(strong) >= 3 and len(strong) % 2:
        divider, second = strong[len(strong) // 2], None
    else:
        divider, second = strong[0], (strong[1] if len(strong) > 1 else None)
    if closed:
        return divider, second if second is not None else j, j
    if second is not None:
        return divider, second, second
    closer = _closer(lines, divider + 1, j, fence)
    if closer is not None:
        return divider, closer, closer
    if j == len(lines):
        raise truncated(f"block {number}, before its >>>>>>> REPLACE line")
    raise ReplyError(
        f"Block {number} has no >>>>>>> REPLACE line: the next block starts at line {j + 1} of"
        " your reply before it ended. End every block with >>>>>>> REPLACE."
    )


def _closer(lines: list[str], start: int, end: int, fence: str) -> int | None:
    """The first bare closing line of fence in lines[start:end] that closes no code example
    the replacement opened itself (```bash ... ```), or None."""
    depth = 0
    for k in range(start, end):
        found = fences.opener(lines[k])
        if found and found[1]:
            depth += 1
        elif fences.is_closer(lines[k], fence):
            if depth == 0:
                return k
            depth -= 1
    return None


def _underline(lines: list[str], index: int, markup: bool = True) -> bool:
    """True when a divider-like line is a markdown heading's underline: right under a line of
    text and followed by a blank line, or, in markup, by the block's end (in code, a divider
    there is the model's second divider: real replies end blocks so, many at once)."""
    above = lines[index - 1].strip() if index > 0 else ""
    below = lines[index + 1].strip() if index + 1 < len(lines) else ""
    text_above = bool(above) and not (is_head(above) or is_divider(above) or is_tail(above))
    return text_above and (not below or (markup and is_tail(below)))


MARKUP = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".textile")
"""Suffixes of files whose lines of = may be headings' underlines."""


def _markup(path: str) -> bool:
    """Whether the file named is markup (or the name is unknown: then so it may be)."""
    return not path or path.lower().endswith(MARKUP)


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _excerpt(lines: list[str], start: int, count: int = 3) -> str:
    shown = [line[:200] for line in lines[start : start + count]]
    return "\n".join(shown)
