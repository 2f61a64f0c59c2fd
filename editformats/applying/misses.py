"""What the model is told when a patch's file operation or chunk fails: which one (by its line
in the reply), the lines it sent that did not match, and the file's nearest lines with their
numbers, or every place it matched. Pure functions of what the applier saw."""

from __future__ import annotations

from editformats.applying.chunks import ChunkMiss
from editformats.edit import Edit

MAX_QUOTED = 40
"""Lines of a chunk or of the file quoted in one message."""
MAX_QUOTE_CHARS = 4000


def operation(edit: Edit) -> str:
    """The operation as the model wrote it, and where: '*** Update File: a.py (line 3)'."""
    marker = "Add File" if edit.new_file else "Delete File" if edit.delete else "Update File"
    return f"*** {marker}: {edit.path} (line {edit.line} of your reply)"


def refused(edit: Edit, name: str, why: str) -> str:
    """A path the guard refuses."""
    return f"{operation(edit)} was refused: {name}: {why}."


def exists(edit: Edit, path: str, shown: bool) -> str:
    """An Add File over a file that exists."""
    seen = "" if shown else " (you have not seen it)"
    return (
        f"{operation(edit)}: {path} exists already{seen}, and a patch never adds a file over"
        f" another. To change it, use *** Update File: {path}; to replace it whole, *** Delete"
        f" File: {path} and then *** Add File: {path}."
    )


def missing(edit: Edit, path: str, gone_here: bool) -> str:
    """A Delete or Update of a file that does not exist."""
    text = f"{operation(edit)}: there is no file {path}"
    text += " (this patch deleted or moved it above)." if gone_here else "."
    if not edit.delete:
        text += f" To create it, use *** Add File: {path} with every line led by '+'."
    return text


def not_shown(edit: Edit, path: str) -> str:
    """A change to a file that exists but is not in the chat."""
    return (
        f"{operation(edit)}: {path} is not one of the files in the chat, so you have not seen"
        " its content and it is not changed. Ask the user to add it to the chat first."
    )


def folder(edit: Edit, path: str) -> str:
    """A file operation on a folder."""
    return f"{operation(edit)}: {path} is a folder, not a file; a patch changes files only."


def move_onto(edit: Edit, target: str, onto_itself: bool) -> str:
    """A Move to onto a path that exists."""
    if onto_itself:
        return f"{operation(edit)}: *** Move to: {target} names the file itself."
    return (
        f"{operation(edit)}: *** Move to: {target} would overwrite {target}, which exists; a"
        " move never overwrites a file. Choose another name, or delete that file first."
    )


def exhausted(edit: Edit) -> str:
    """An operation not tried because the reply's searching is used up."""
    return (
        f"{operation(edit)} was not tried: finding the patch's chunks took all the searching"
        " one reply may do. Send a smaller patch, with more distinctive context lines."
    )


def chunk(edit: Edit, path: str, miss: ChunkMiss, lines: list[str], nearest: range) -> str:
    """A chunk that did not apply; lines are the file's, nearest the ones to show."""
    where = f"{operation(edit)}, chunk {miss.number} (line {miss.chunk.line})"
    below = f" below line {miss.cursor}" if miss.cursor else ""
    if miss.why == "anchor":
        text = f"{where}: its line @@ {miss.anchor} matches no line of {path}{below}."
    elif miss.why == "ambiguous":
        shown = _numbers([s + 1 for s in miss.places]) + (" and more" if miss.more else "")
        count = f"{len(miss.places)}{'+' if miss.more else ''}"
        return (
            f"{where}: its lines match {count} places in {path}{below}, starting at lines"
            f" {shown}. Put an @@ line naming the class or function the change is in above"
            " the chunk (the first match below that line is changed), or add context lines"
            " until the chunk matches one place only."
        )
    elif miss.why == "not-at-end":
        text = (
            f"{where}: it ends with *** End of File, but these lines of it are not the last"
            f" lines of {path}:\n{_fence(_sent(miss))}"
        )
    else:
        text = f"{where}: these lines of it match no lines of {path}{below}:\n{_fence(_sent(miss))}"
        if miss.places and _starts_with_its_anchor(miss):
            text += (
                f"\nThey stand at line {miss.places[0] + 1}, where the chunk's own @@ line"
                " points: a chunk is looked for below the line its @@ names, so leave that line"
                " out of the chunk, or name the line above it."
            )
        elif miss.places:
            text += (
                f"\nThey stand at line {miss.places[0] + 1}, above where the search began: the"
                " chunks of a section must follow the file's order, and an @@ line only looks"
                " below the previous chunk."
            )
        if miss.made >= 0:
            text += (
                f"\nIts lines as the change leaves them (kept and added) already stand in"
                f" {path}, at line {miss.made + 1}. If chunk {miss.number} is meant to change"
                " those lines, the change is made already: leave the chunk out. If not, copy"
                " its kept and removed lines exactly as they stand in the file now."
            )
    if nearest:
        label = "last" if miss.why == "not-at-end" else "nearest"
        text += (
            f"\nThe {label} lines of {path}, numbered (the numbers are not part of the file):"
            f"\n{_fence(numbered(lines, nearest))}"
        )
    return text


def numbered(lines: list[str], span: range) -> str:
    """The lines in span, each after its number (from 1)."""
    width = len(str(span.stop))
    return "\n".join(f"{n + 1:>{width}} | {lines[n]}" for n in span[:MAX_QUOTED])


def _starts_with_its_anchor(miss: ChunkMiss) -> bool:
    """True when the chunk's first line to find is the line its last @@ names."""
    anchors, wanted = miss.chunk.anchors, miss.chunk.before()
    return bool(anchors and wanted) and anchors[-1].strip() == wanted[0].strip()


def _sent(miss: ChunkMiss) -> str:
    """The chunk's lines to find, as the model sent them."""
    return "\n".join(line for line in miss.chunk.lines if line[0] != "+")


def _numbers(values: list[int]) -> str:
    if len(values) == 1:
        return str(values[0])
    return ", ".join(map(str, values[:-1])) + f" and {values[-1]}"


def _fence(text: str) -> str:
    lines = text.split("\n")
    if len(lines) > MAX_QUOTED:
        text = "\n".join(lines[:MAX_QUOTED]) + "\n[...]"
    if len(text) > MAX_QUOTE_CHARS:
        text = text[:MAX_QUOTE_CHARS] + "\n[...]"
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text}\n{ticks}"
