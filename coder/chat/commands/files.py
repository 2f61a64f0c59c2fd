"""The files in the chat: /add, /drop, /read-only, /ls."""

from __future__ import annotations

import glob
import os

from coder.chat.commands.registry import Chat, command, names
from coder.errors import PathError, UsageError


@command(
    "add", "Add files to the chat (globs work; a missing file is added as new, if you agree).", True
)
def _add(chat: Chat, args: str) -> None:
    from coder.edits import guard

    session = chat.session
    for name in names(args):
        name = os.path.expanduser(name)
        if glob.has_magic(name):
            matches = sorted(p for p in session.ws.root.glob(name) if p.is_file())
            if not matches:
                chat.terminal.error(f"No file matches {name}: nothing added.")
            for path in matches:
                rel = _relative(chat, path)
                if rel and guard.steers(rel) and rel not in session.named:
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
    session.files.append(rel)
    if rel in session.read_only:
        session.read_only.remove(rel)
    chat.terminal.say(f"Added {rel} to the chat.")


@command("drop", "Remove files from the chat (all of them without arguments).", True)
def _drop(chat: Chat, args: str) -> None:
    dropped = names(args)
    for listing in (chat.session.files, chat.session.read_only):
        for rel in list(listing):
            if not dropped or rel in dropped:
                listing.remove(rel)
                chat.terminal.say(f"Dropped {rel}.")


@command("read-only", "Add files for reference only: the model sees them but cannot edit.", True)
def _read_only(chat: Chat, args: str) -> None:
    for name in names(args):
        rel = chat.session.ws.relative(chat.session.ws.root / os.path.expanduser(name))
        if not chat.session.ws.read(rel).exists:
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
