"""The one registry of slash commands: what a command is, what it acts on, and dispatch."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coder.errors import CoderError, UsageError

if TYPE_CHECKING:
    from coder.chat.config import Config
    from coder.chat.session import Session
    from coder.seams.model import Model
    from coder.seams.repo import Repo
    from coder.terminal import Terminal


@dataclass
class Chat:
    """What the commands act on: the session, the terminal, the settings, and how to make a
    model from a name (/model, /architect's editor)."""

    session: Session
    terminal: Terminal
    config: Config
    make_model: Callable[[str], Model]


@dataclass(frozen=True)
class Command:
    """A slash command: its name, a one-line help, and what it does."""

    name: str
    help: str
    run: Callable[[Chat, str], None]
    takes_files: bool = False
    """Tab completion offers the repository's file names."""


COMMANDS: dict[str, Command] = {}


def command(name: str, help: str, takes_files: bool = False):
    """Register the decorated function as /name."""

    def register(run: Callable[[Chat, str], None]) -> Callable[[Chat, str], None]:
        COMMANDS[name] = Command(name, help, run, takes_files)
        return run

    return register


def dispatch(chat: Chat, line: str) -> None:
    """Run a command line such as '/add a.py' or '!ls'; UsageError for an unknown command."""
    if line.startswith("!"):
        COMMANDS["run"].run(chat, line[1:].strip())
        return
    name, _, args = line[1:].partition(" ")
    matches = [c for c in COMMANDS if c == name] or [c for c in COMMANDS if c.startswith(name)]
    if len(matches) != 1:
        known = ", ".join(f"/{c}" for c in COMMANDS)
        raise UsageError(f"unknown command /{name}; the commands are: {known}")
    COMMANDS[matches[0]].run(chat, args.strip())


def names(args: str) -> list[str]:
    """The file names in a command's arguments, quoted as a shell quotes them."""
    try:
        return shlex.split(args)
    except ValueError as exc:
        raise UsageError(f"cannot read the file names: {exc}") from None


def repo_of(chat: Chat) -> Repo:
    """The repository of the chat; CoderError without git."""
    if chat.session.repo is None:
        raise CoderError("not using git (--no-git), so there are no commits")
    return chat.session.repo
