"""The files in the chat: /add, /drop, /read-only, /ls."""

from __future__ import annotations

import glob
import os
from pathlib import Path

from coder.chat.commands.registry import Chat, command, names
from coder.errors import PathError, UsageError


@command(
    "add", "Add files to the chat (globs work; a missing file is added as new, if you agree).", True
)
def _add(chat: Chat, args: str) -> None:
    from coder.edits import steering

    session = chat.session
    for name in names(args):
        name = os.path.expanduser(name)
        if glob.has_magic(name):
            pattern = os.path.join(session.ws.root, name)  # an absolute name stays as it is
            matches = sorted(
                Path(p) for p in glob.glob(pattern, recursive=True) if os.path.isfile(p)
            )
            if not matches:
                chat.terminal.error(f"No file matches {name}: nothing added.")
            for path in matches:
                rel = _relative(chat, path)
                if rel and steering.steers(rel) and rel not in session.named:
                    chat.terminal.say(f"Not added: {rel} steers coder or git; /add it by name.")
                elif rel:
                    _add_one(chat, rel)
            continue
        rel = _relative(chat, session.ws.root / name)
        if rel is None:
            continue
        if not session.ws.read(rel).exists:
            question = f"{rel} does not exist. Add it to the chat as a new file?"
            if not chat.terminal.confirm(question):
                continue
        session.named.add(rel)
        _add_one(chat, rel)


def _relative(chat: Chat, path) -> str | None:
    try:
        return chat.session.ws.relative(path)
    except PathError as exc:
        chat.terminal.error(str(exc))
        return None


def _add_one(chat: Chat, rel: str) -> None:
    session = chat.session
    if rel in session.files:
        chat.terminal.say(f"{rel} is already in the chat.")
        return
    if not affordable(session, chat.terminal, rel):
        return
    session.files.append(rel)
    if rel in session.read_only:
        session.read_only.remove(rel)
    chat.terminal.say(f"Added {rel} to the chat.")


LARGE = 256 * 1024
"""Bytes above which a file is only added to the chat once the user agrees: all of it goes
with every request."""
CHARS_PER_TOKEN = 4
"""Roughly, for the estimate said to the user."""
FITS_ANY = 8_000
"""Tokens every model takes in one request: a smaller file is added without asking the model's
context window, which may need the seconds litellm takes to import."""


def affordable(session, terminal, rel: str) -> bool:
    """Whether rel may join the chat: refused when it alone would not fit the model's context
    window (when known); above LARGE, only if the user agrees (no by default)."""
    try:
        size = session.ws.check(rel).stat().st_size
    except (OSError, PathError):
        return True  # a new file, or one the workspace will refuse with its own reason
    tokens = size // CHARS_PER_TOKEN
    if tokens <= FITS_ANY:
        return True
    window = getattr(session.model, "context_window", lambda: None)()
    if window and tokens > window:
        terminal.error(
            f"{rel} is about {tokens:,} tokens, more than {session.model.name} takes in one"
            f" request ({window:,}): it is not added."
        )
        return False
    if size <= LARGE:
        return True
    question = (
        f"{rel} is {size / 1e6:.1f} MB, about {tokens:,} tokens sent with every request."
        " Add it anyway?"
    )
    if terminal.confirm(question, default=False):
        return True
    terminal.say(f"Not added: {rel}.")
    return False


@command("drop", "Remove files from the chat (all of them without arguments).", True)
def _drop(chat: Chat, args: str) -> None:
    session = chat.session
    listings = (session.files, session.read_only)
    if not args.strip():
        for listing in listings:
            for rel in list(listing):
                listing.remove(rel)
                chat.terminal.say(f"Dropped {rel}.")
        return
    for name in names(args):
        rel = _known(chat, name)
        found = [listing for listing in listings if rel in listing]
        for listing in found:
            listing.remove(rel)
            chat.terminal.say(f"Dropped {rel}.")
        if not found:
            chat.terminal.error(f"{name} is not in the chat: nothing dropped (/ls lists them).")


def _known(chat: Chat, name: str) -> str:
    """The name the chat knows a file by, whether it was given as the chat shows it, relative
    to the current folder, absolute or with a ~."""
    if name in chat.session.files or name in chat.session.read_only:
        return name
    try:
        return chat.session.ws.reference(
            os.path.join(chat.session.ws.root, os.path.expanduser(name))
        )
    except PathError:
        return name


@command("read-only", "Add files for reference only: the model sees them but cannot edit.", True)
def _read_only(chat: Chat, args: str) -> None:
    for name in names(args):
        try:
            rel = chat.session.ws.reference(
                os.path.join(chat.session.ws.root, os.path.expanduser(name))
            )
        except PathError as exc:
            raise UsageError(str(exc)) from None
        if not chat.session.ws.read_reference(rel).exists:
            raise UsageError(f"{rel} does not exist")
        if rel not in chat.session.read_only:
            chat.session.read_only.append(rel)
            chat.terminal.say(f"Added {rel} read-only.")


@command("ls", "List the files in the chat.")
def _ls(chat: Chat, args: str) -> None:
    for rel in chat.session.files:
        chat.terminal.say(f"  {rel}")
    for rel in chat.session.read_only:
        chat.terminal.say(f"  {rel} (read-only)")
    if not chat.session.files and not chat.session.read_only:
        chat.terminal.say("No files in the chat: /add some.")
