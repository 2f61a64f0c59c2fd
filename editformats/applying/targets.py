"""Which file an edit changes: the name it gives resolved against the chat and the repository,
or, for an edit that names none (or a file that does not exist), the one chat file holding its
text or named in its prose; and why an edit of a file outside the chat is refused."""

from __future__ import annotations

from editformats import paths
from editformats.applying import matching
from editformats.applying.document import Document, split_lines
from editformats.applying.state import MAX_EXPLAINED, MAX_HOLDERS, MAX_SEARCHED, Miss, State
from editformats.edit import Edit, Failure


def target(edit: Edit, state: State) -> str:
    """The path an edit changes: its own name resolved, or the file its prose or text points to."""
    creating = edit.whole or not edit.original.strip()
    if edit.path:
        path = paths.resolve(edit.path, state.docs, state.tree, creating)
    else:
        path = _unnamed_target(edit, state)
    # A file the user put in the chat keeps its name, odd as it may be (bytes that are not
    # UTF-8, a leading -); the rest of the guard (Workspace.check) still holds for it.
    refusal = paths.refusal(path) if path not in state.chat else None
    if path.startswith("-") and path not in state.docs:
        # Commands run on the changed files (a lint command) would take such a name for an
        # option.
        refusal = f"{path} starts with -, which commands would read as an option"
    new = path not in state.docs and path not in state.tree.files
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    if not refusal and new and paths.is_placeholder(folder) and folder not in state.tree.folders:
        refusal = (
            f"{path} lies under {paths.PLACEHOLDER}/, the examples' placeholder folder; write the"
            " file's real path"
        )
    if not refusal and new:
        twin = state.look_alike(path)
        if twin:
            refusal = (
                f"{path} looks like {twin} but is another name (its letters differ), so it"
                f" would be a second file beside it; write {twin} exactly"
            )
    if refusal:
        raise Miss(Failure(edit, f"Block {edit.index} was refused: {refusal}.", path=path))
    if path not in state.docs and not creating and path not in state.tree.files:
        holders = holding(edit, state, set(state.chat))
        if len(holders) == 1:
            state.notes[holders[0]] = f"it names {path}, which does not exist; its text is here"
            return holders[0]
    if path not in state.docs and (path in state.tree.files or not creating):
        raise Miss(Failure(edit, _not_in_chat(edit, path, state), path=path, kind="outside-chat"))
    return path


def _unnamed_target(edit: Edit, state: State) -> str:
    """The file of an edit that names none: the one chat file holding its text, else the one
    chat file its prose mentions (several are too many to guess from), else the only chat
    file when the prose names none."""
    if edit.original.strip():
        holders = holding(edit, state, set(state.chat))
        if len(holders) == 1:
            return holders[0]
    named = {paths.resolve(m, state.chat, state.tree) for m in edit.mentions} & state.chat
    path = next(iter(named)) if len(named) == 1 else ""
    if not path and not edit.mentions and len(state.chat) == 1:
        path = next(iter(state.chat))
    if not path:
        raise Miss(Failure(edit, _NO_NAME.format(n=edit.index)))
    if edit.whole and not fits(edit, path, state.docs[path]):
        raise Miss(Failure(edit, _NO_NAME.format(n=edit.index), path=path))
    return path


_NO_NAME = (
    "Block {n} does not say which file it edits: put the file's path alone on the line above"
    " the block's fence."
)
KEEP_SHARE = 0.3
"""The share of an existing file's lines that a whole-file block without a name must keep to be
taken for a new version of it (a snippet or an example keeps less)."""
_LANGUAGES = {
    "diff": (".diff", ".patch"),
    "patch": (".diff", ".patch"),
    "json": (".json", ".jsonc", ".json5", ".ipynb"),
}
"""Fence languages that are usually a tool's output rather than a file, and the extensions of
the files a block of that language can be."""


def fits(edit: Edit, path: str, doc: Document) -> bool:
    """True when a whole-file block without a name can be a new version of the file at path:
    its language fits the file's extension, and it keeps enough of the file's lines."""
    if not language_fits(edit, path):
        return False
    old = {line.strip() for line in doc.lines if line.strip()} if doc.exists else set()
    if not old:
        return True
    new = {line.strip() for line in split_lines(edit.updated) if line.strip()}
    return len(old & new) >= KEEP_SHARE * len(old)


def language_fits(edit: Edit, path: str) -> bool:
    """False when the block's fence names a language whose blocks are rarely files (a diff,
    JSON) and the file at path is not of that kind."""
    kinds = _LANGUAGES.get(edit.language)
    return kinds is None or path.lower().endswith(kinds)


def _not_in_chat(edit: Edit, path: str, state: State) -> str:
    exists = path in state.tree.files
    text = f"Block {edit.index} edits {path}, which is not one of the files in the chat"
    text += " (it exists, but you have not seen it)." if exists and edit.whole else "."
    if edit.original.strip() and state.explained < MAX_EXPLAINED:
        others = holding(edit, state, set(state.docs))
        if len(others) == 1:
            text += f" Its ORIGINAL text is in {others[0]}: name that file above the block."
    return text


def holding(edit: Edit, state: State, among: set[str]) -> list[str]:
    """The files among those given in which the edit's ORIGINAL text stands once (none once
    the reply's searching is used up, or among more than MAX_HOLDERS files)."""
    if len(among) > MAX_HOLDERS:
        return []
    original = split_lines(edit.original)
    found = []
    for path in sorted(among):
        doc = state.docs.get(path)
        if doc is None or not doc.exists or state.spent() > MAX_SEARCHED:
            continue
        if isinstance(matching.locate(state.hay(path), original, original), matching.Found):
            found.append(path)
    return found
