"""The data an edit format turns a reply into, and what applying it produces."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from editformats.errors import ReplyError

MAX_EDITS = 1000
"""Edits one reply may hold; a reply with more is refused whole, as soon as that is seen."""


def check_count(count: int) -> None:
    """ReplyError when a reply holds more than MAX_EDITS edits."""
    if count > MAX_EDITS:
        raise ReplyError(
            f"Your reply holds more than {MAX_EDITS:,} edits; at most {MAX_EDITS:,} are applied"
            " from one reply. Send fewer, larger edits."
        )


@dataclass(frozen=True)
class ToolCall:
    """One function call the model made: its name, its JSON arguments as text, and the id the
    model gave it (each call must be answered by a message with that id)."""

    name: str
    arguments: str
    id: str = ""


@dataclass(frozen=True)
class Example:
    """One message of an edit format's example exchange: a user request, the assistant's reply
    (text, or real function calls), or the answer to a call (role "tool")."""

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""


@dataclass(frozen=True)
class Reply:
    """What the model answered: the text, and the function calls when it made any."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class Chunk:
    """One chunk of a patch's Update File section: its lines, each led by its mark (' ' kept,
    '-' removed, '+' added), and where in the file it is looked for."""

    lines: tuple[str, ...]
    anchors: tuple[str, ...] = ()
    """The texts of the @@ lines above it, in order: each moves the search below the first line
    equal to it."""
    at_end: bool = False
    """*** End of File closes it: its lines must be the file's last."""
    line: int = 0
    """Line of the patch where the chunk starts, from 1."""

    def before(self) -> list[str]:
        """The lines it looks for in the file: the kept and the removed ones."""
        return [line[1:] for line in self.lines if line[0] != "+"]

    def after(self) -> list[str]:
        """The lines it leaves in the file: the kept and the added ones."""
        return [line[1:] for line in self.lines if line[0] != "-"]


@dataclass(frozen=True)
class Edit:
    """One change a reply asks for.

    `whole` edits carry the entire new file in `updated`. Otherwise `original` is the text
    to find and `updated` its replacement; an empty `original` creates the file or appends.
    """

    path: str
    original: str
    updated: str
    whole: bool = False
    index: int = 0
    """Position of the edit in the reply, from 1, as the model is told about it."""
    line: int = 0
    """Line of the reply where the edit starts, from 1 (0 when not from text)."""
    mentions: tuple[str, ...] = ()
    """File names the prose before the edit mentions, in order: used when path is ''."""
    call: int = -1
    """For a function format, which call of the reply (from 0) the edit came from."""
    language: str = ""
    """For a whole-file block without a name, its fence's language (to check the file fits)."""
    optional: bool = False
    """A whole-file block the reply does not name, after prose naming a file: it is that chat
    file only if it reads as a new version of it (else an illustration, left out)."""
    new_file: bool = False
    """The edit creates its file (a diff from /dev/null): it may not add to an existing one."""
    insert_at: int | None = None
    """For an edit with nothing to find from a diff hunk: the line (from 0) its lines go
    before, as the hunk header says; -1 when the header does not say. None for other edits,
    whose empty text to find means: add at the end."""
    chunks: tuple[Chunk, ...] = ()
    """For a patch's Update File section: its chunks, applied in order."""
    delete: bool = False
    """The edit deletes its file (a patch's Delete File)."""
    move_to: str = ""
    """The edit renames its file to this path, after its chunks (a patch's Move to)."""


@dataclass(frozen=True)
class Applied:
    """An edit that applied, and how its text was found."""

    edit: Edit
    path: str
    how: str
    """exact, whitespace, indentation, blank-lines, elision, split, fuzzy, already-present,
    duplicate, created, appended, inserted or whole."""
    score: float = 1.0
    note: str = ""
    """What the user should know about how it applied, e.g. which of several places changed."""


@dataclass(frozen=True)
class Failure:
    """An edit that did not apply, with what the model needs to fix it."""

    edit: Edit
    reason: str
    """A sentence for the model saying what went wrong."""
    closest: str = ""
    """The real lines of the file closest to what the edit looked for."""
    path: str = ""
    """The resolved path, when the file could be resolved."""
    kind: str = ""
    """Why, in a word: "not-found" or "ambiguous" (the text to find), "outside-chat" (the file
    is not in the chat: the user may add it), "steering" (the file steers the tool),
    "read-only" (its mode forbids writing: the user may allow it), "budget" (not tried: the
    reply's searching was used up); "" for any other reason."""


@dataclass(frozen=True)
class ApplyResult:
    """The outcome of applying all edits of a reply in memory; nothing is written."""

    files: Mapping[str, str] = field(default_factory=dict)
    """New content of every file that changed (created files included)."""
    applied: tuple[Applied, ...] = ()
    failures: tuple[Failure, ...] = ()
    deleted: tuple[str, ...] = ()
    """Files the edits remove, the old paths of moved files included."""
    moved: Mapping[str, str] = field(default_factory=dict)
    """Renamed files, old path -> new path (the new one's text is in files)."""
    atomic: bool = False
    """The edits apply all or none: with a failure, nothing of them applied."""

    @property
    def ok(self) -> bool:
        """True when every edit applied."""
        return not self.failures

    @property
    def changed(self) -> tuple[str, ...]:
        """Every path the result writes or removes, sorted."""
        return tuple(sorted({*self.files, *self.deleted}))


@dataclass(frozen=True)
class EditFormat:
    """An edit format: how the model is asked to write edits and how they are read back."""

    name: str
    system_prompt: str
    example_messages: tuple[Example, ...]
    """One exchange in this format: a request and its reply (with the call's answer, for a
    function format)."""
    parse: Callable[[Reply], list[Edit]]
    apply: Callable[..., ApplyResult]
    """apply(edits, files, tree=paths.Tree()): the edits applied to files (path -> text) in
    memory; tree names the repository's other files, so that names resolve as they should."""
    tool: Mapping | None = None
    """For function formats, the OpenAI tool definition the model is forced to call."""
