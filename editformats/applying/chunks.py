"""An Update File section's chunks applied to one file: each @@ anchor moves a cursor down, each
chunk is found below the cursor (in one place only, unless an anchor says which), and every
change is made at once, on the file as the section found it.

Lines found loosely keep the file's own text; added lines are written as the patch gives them,
with the file's line ending.
"""

from __future__ import annotations

from dataclasses import dataclass

from editformats.applying.filetext import FileText
from editformats.applying.seeking import LEVELS, Lines, Match, Several
from editformats.edit import Chunk


@dataclass(eq=False)
class ChunkMiss(Exception):
    """A chunk that cannot apply: which, why in a word, and what the search saw. (Not frozen:
    raising an exception sets attributes on it.)"""

    number: int
    """The chunk's position in its section, from 1."""
    chunk: Chunk
    why: str
    """"anchor" (an @@ line names no line below the cursor), "not-found", "ambiguous", or
    "not-at-end" (an *** End of File chunk that is not the file's end)."""
    cursor: int
    """The first line (from 0) the search looked at."""
    anchor: str = ""
    places: tuple[int, ...] = ()
    """For "ambiguous", the lines (from 0) where the chunk starts; for "not-found", where it
    stands above the cursor, if it does."""
    more: bool = False
    made: int = -1
    """For "not-found", the line (from 0) where the chunk's lines as the change leaves them
    stand, when they stand in one place: the change may be made already; else -1."""


@dataclass(frozen=True)
class Done:
    """The file after the chunks, and the loosest level any of them needed."""

    text: FileText
    level: str
    notes: tuple[str, ...] = ()


def apply(text: FileText, chunks: tuple[Chunk, ...], meter: list[int]) -> Done:
    """The chunks applied to text; ChunkMiss for the first that cannot apply (then nothing of
    them is). seeking.Exhausted when the reply's searching is used up."""
    hay = Lines(text.lines, meter)
    newline = text.newline()
    cursor = 0
    changes: list[tuple[int, int, list[str], list[str]]] = []
    loosest = 0
    notes = []
    for number, chunk in enumerate(chunks, 1):
        for anchor in chunk.anchors:
            found = hay.find([anchor], cursor, first=True)
            if not isinstance(found, Match):
                raise ChunkMiss(number, chunk, "anchor", cursor, anchor)
            cursor = found.start + 1
            loosest = max(loosest, LEVELS.index(found.level))
        wanted = chunk.before()
        if not wanted:
            at = cursor if chunk.anchors and not chunk.at_end else len(text.lines)
            changes.append((at, at, *_lines(chunk, text, at, newline)))
            continue
        match = _locate(hay, chunk, number, wanted, cursor)
        level = LEVELS.index(match.level)
        if level:
            notes.append(f"chunk {number} matched with {_LOOSE[match.level]}")
        loosest = max(loosest, level)
        end = match.start + len(wanted)
        changes.append((match.start, end, *_lines(chunk, text, match.start, newline)))
        cursor = end
    changes.sort(key=lambda c: c[0])
    return Done(text.replaced(changes), LEVELS[loosest], tuple(notes))


_LOOSE = {
    "whitespace": "trailing whitespace ignored",
    "indentation": "surrounding whitespace ignored",
    "punctuation": "typographic punctuation read as ASCII",
}


def _locate(hay: Lines, chunk: Chunk, number: int, wanted: list[str], cursor: int) -> Match:
    """Where the chunk's lines stand: pinned to the end, the first place below its anchor, or
    the one place below the cursor."""
    if chunk.at_end:
        found = hay.at(wanted, len(hay.lines) - len(wanted))
        if found is None or found.start < cursor:
            raise ChunkMiss(number, chunk, "not-at-end", cursor)
        return found
    found = hay.find(wanted, cursor, first=bool(chunk.anchors))
    if isinstance(found, Several):
        raise ChunkMiss(number, chunk, "ambiguous", cursor, "", found.starts, found.more)
    if found is None:
        above = hay.find(wanted, 0, first=True) if cursor else None
        places = (above.start,) if isinstance(above, Match) else ()
        raise ChunkMiss(number, chunk, "not-found", cursor, "", places, made=_made(hay, chunk))
    return found


def _made(hay: Lines, chunk: Chunk) -> int:
    """Where the chunk's lines after the change (kept and added) stand, when they stand in one
    place and add a line its lines to find lack; else -1. A patch is strict, so this is never
    taken for the change made: the message only says where they are."""
    after = chunk.after()
    before = {line.strip() for line in chunk.before()}
    if not any(line.strip() and line.strip() not in before for line in after):
        return -1
    found = hay.find(after, 0)
    return found.start if isinstance(found, Match) else -1


def _lines(chunk: Chunk, text: FileText, start: int, newline: str) -> tuple[list[str], list[str]]:
    """The chunk's new lines and their endings: kept lines as the file has them (from start
    on), added lines as the chunk gives them."""
    lines: list[str] = []
    ends: list[str] = []
    at = start
    for line in chunk.lines:
        mark = line[0]
        if mark == "+":
            lines.append(line[1:])
            ends.append(newline)
        elif mark == " ":
            lines.append(text.lines[at])
            ends.append(text.ends[at])
        at += mark != "+"
    return lines, ends
