"""Slash commands, from one registry: /help and tab completion are generated from it."""

from __future__ import annotations

import glob
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from coder.chat.pick import pick
from coder.errors import CoderError, PathError, UsageError
from coder.repomap import CACHE_FILES
from coder.repomap.tokens import ESTIMATED
from coder.trust.selection import testing

if TYPE_CHECKING:
    from coder.chat.config import Config
    from coder.chat.session import Session
    from coder.seams.model import Model
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


@command(
    "add", "Add files to the chat (globs work; a missing file is added as new, if you agree).", True
)
def _add(chat: Chat, args: str) -> None:
    from coder.edits import guard

    session = chat.session
    for name in _names(args):
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
    names = _names(args)
    for listing in (chat.session.files, chat.session.read_only):
        for rel in list(listing):
            if not names or rel in names:
                listing.remove(rel)
                chat.terminal.say(f"Dropped {rel}.")


@command("read-only", "Add files for reference only: the model sees them but cannot edit.", True)
def _read_only(chat: Chat, args: str) -> None:
    for name in _names(args):
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


@command("diff", "Show the changes of coder's last commit.")
def _diff(chat: Chat, args: str) -> None:
    repo = _repo(chat)
    if not chat.session.commits:
        chat.terminal.say("coder has made no commit in this session.")
        return
    chat.terminal.diff(repo.show(chat.session.commits[-1]))


@command("undo", "Undo coder's last commit, if nothing changed since and it was not pushed.")
def _undo(chat: Chat, args: str) -> None:
    repo = _repo(chat)
    if not chat.session.commits:
        chat.terminal.say("coder has made no commit in this session to undo.")
        return
    sha = chat.session.commits[-1]
    files = repo.undo(sha)
    chat.session.commits.pop()
    names = ", ".join(files)
    chat.terminal.say(f"Undone: {names} {'is' if len(files) == 1 else 'are'} back as before.")
    # The model was told its edit applied; it must learn that the edit is gone.
    chat.session.history_note(f"I undid your last edit (commit {sha[:7]}): {names} as before.")


@command("commit", "Commit the uncommitted changes of the chat files.")
def _commit(chat: Chat, args: str) -> None:
    repo = _repo(chat)
    dirty = repo.dirty(chat.session.files)
    if not dirty:
        chat.terminal.say("Nothing to commit.")
        return
    sha = repo.commit(dirty, args or f"coder: commit changes to {', '.join(dirty)}")
    chat.terminal.say(f"Committed {sha[:7]}.")


@command("run", "Run a shell command (also !command) and offer its output to the chat.")
def _run(chat: Chat, args: str) -> None:
    if not args:
        raise UsageError("/run needs a command")
    status, output = _shell(chat, args)
    if output and chat.terminal.confirm("Add the output to the chat?", default=False):
        chat.session.history_note(f"I ran `{args}` (exit status {status}):\n\n{output}")


@command("test", "Run the test command (--test-cmd) and offer failures to the model.")
def _test(chat: Chat, args: str) -> None:
    cmd = args or chat.config.test_cmd
    if not cmd:
        raise UsageError("no test command: pass --test-cmd or give one: /test pytest -x")
    if chat.session.config.sandbox is not None:
        status, output = _contained(chat, cmd)
    else:
        status, output = _shell(chat, cmd)
    if status == 0:
        chat.terminal.say("The tests pass.")
    elif chat.terminal.confirm("The tests fail. Ask the model to fix them?", default=True):
        chat.session.turn(f"`{cmd}` fails:\n\n{output[-8000:]}\n\nFix the code.")


@command(
    "architect",
    "/architect TEXT: the model plans, the editor model edits; alone: architect mode on or off.",
)
def _architect(chat: Chat, args: str) -> None:
    session = chat.session
    if args:
        session.turn(args, architect=True)
        return
    session.config = replace(session.config, architect=not session.config.architect)
    state = "on: the model plans, the editor model edits" if session.config.architect else "off"
    chat.terminal.say(f"Architect mode is {state}.")


@command("ask", "Ask a question about the code; nothing is edited.")
def _ask(chat: Chat, args: str) -> None:
    if not args:
        raise UsageError("/ask needs a question")
    chat.session.ask(args)


@command("model", "Switch to another model: /model NAME.")
def _model(chat: Chat, args: str) -> None:
    if not args:
        chat.terminal.say(f"The model is {chat.session.model.name}.")
        return
    chat.session.model = chat.make_model(args)
    chat.terminal.say(f"The model is now {chat.session.model.name}.")


@command("edit-format", "Switch the edit format: /edit-format diff.")
def _edit_format(chat: Chat, args: str) -> None:
    from editformats import FORMATS, get_format

    if not args:
        chat.terminal.say(
            f"The edit format is {chat.session.fmt.name}; others: {', '.join(FORMATS)}"
        )
        return
    try:
        chat.session.fmt = get_format(args)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    chat.terminal.say(f"The edit format is now {chat.session.fmt.name}.")


@command("candidates", "Ask for N candidate replies per request (1 turns it off).")
def _candidates(chat: Chat, args: str) -> None:
    from coder.trust.selection.candidates import MAX_CANDIDATES

    if not args:
        chat.terminal.say(f"Candidates per request: {chat.session.config.candidates}.")
        return
    if not args.isdigit() or not 1 <= int(args) <= MAX_CANDIDATES:
        raise UsageError(f"/candidates takes a number from 1 to {MAX_CANDIDATES}, not {args!r}")
    chat.session.config = replace(chat.session.config, candidates=int(args))
    chat.terminal.say(f"Candidates per request: {args}.")


@command("pick", "Apply another candidate of the last request instead: /pick B.")
def _pick(chat: Chat, args: str) -> None:
    if not args:
        raise UsageError("/pick needs a candidate's label, such as /pick B")
    pick(chat.session, args)


@command("rtc", "Round-trip check of the last edit (--request: the describer sees the request).")
def _rtc(chat: Chat, args: str) -> None:
    if args not in ("", "--request"):
        raise UsageError(f"/rtc takes only --request, not {args!r}")
    chat.session.round_trip(with_request=args == "--request")


@command("tokens", "Tokens the next request will send, by part; the session's total and cost.")
def _tokens(chat: Chat, args: str) -> None:
    count = getattr(chat.session.model, "count_tokens", None) or (lambda text: len(text) // 4)
    files, read_only = chat.session.contents()
    parts = {"system prompt": chat.session.fmt.system_prompt}
    parts |= {
        f"history ({len(chat.session.history)} messages)": "".join(
            m.content for m in chat.session.history
        )
    }
    parts |= {"repository map": chat.session.map_text()}
    parts |= {rel: text for rel, text in (files | read_only).items()}
    total = 0
    for label, text in parts.items():
        n = count(text)
        total += n
        chat.terminal.say(f"{n:>9,}  {label}")
    chat.terminal.say(f"{total:>9,}  in all")
    from coder.chat.session import spent

    chat.terminal.say(spent(chat.session.usage))


@command("map", "Show the repository map the next request will carry.")
def _map(chat: Chat, args: str) -> None:
    session = chat.session
    if session.config.map_tokens <= 0:
        chat.terminal.say("The repository map is off (--map-tokens 0).")
        return
    _show_map(chat, session.map_text())


@command("map-refresh", "Read every file again and rebuild the repository map.")
def _map_refresh(chat: Chat, args: str) -> None:
    session = chat.session
    if session.config.map_tokens <= 0:
        chat.terminal.say("The repository map is off (--map-tokens 0).")
        return
    if session.repo_map is not None:
        session.repo_map.refresh()
    text = session.map_text()
    files = "file" if session.repo_map.parsed == 1 else "files"
    chat.terminal.say(f"The repository map is rebuilt: {session.repo_map.parsed:,} {files} read.")
    _show_map(chat, text)


def _show_map(chat: Chat, text: str) -> None:
    """The map, and its size against the budget."""
    repo_map = chat.session.repo_map
    if not text and repo_map.ranked:
        chat.terminal.say(
            f"The map is empty: its first entry does not fit in {repo_map.budget:,} tokens"
            " (--map-tokens)."
        )
        return
    if not text:
        chat.terminal.say("The map is empty: no file outside the chat defines anything it reads.")
        return
    chat.terminal.say(text.rstrip("\n"))
    tokens = repo_map.tokenizer.count(text)
    note = "" if repo_map.tokenizer.exact else f" ({ESTIMATED})"
    chat.terminal.say(f"The map: {tokens:,} tokens of {repo_map.budget:,}{note}.")


@command("clear", "Forget the conversation; the files stay.")
def _clear(chat: Chat, args: str) -> None:
    chat.session.history.clear()
    chat.terminal.say("The conversation is cleared.")


@command("reset", "Forget the conversation and drop every file.")
def _reset(chat: Chat, args: str) -> None:
    chat.session.history.clear()
    chat.session.files.clear()
    chat.session.read_only.clear()
    chat.terminal.say("The conversation is cleared and every file dropped.")


@command("help", "List the commands.")
def _help(chat: Chat, args: str) -> None:
    for name, cmd in COMMANDS.items():
        chat.terminal.say(f"  /{name:<12} {cmd.help}")
    chat.terminal.say("  !command      Same as /run command.")


@command("exit", "Leave coder.")
def _exit(chat: Chat, args: str) -> None:
    raise EOFError


def _names(args: str) -> list[str]:
    import shlex

    try:
        return shlex.split(args)
    except ValueError as exc:
        raise UsageError(f"cannot read the file names: {exc}") from None


def _repo(chat: Chat):
    if chat.session.repo is None:
        raise CoderError("not using git (--no-git), so there are no commits")
    return chat.session.repo


def _contained(chat: Chat, cmd: str) -> tuple[int, str]:
    """Run cmd in a sandboxed copy of the repository's files; (exit status, output)."""
    session = chat.session
    files = session.repo.files() if session.repo else testing.tree_files(session.ws.root)
    files = [f for f in files if f not in CACHE_FILES]  # coder's own cache is not the user's
    setup = testing.TestSetup(cmd, tuple(files), chat.config.timeout, session.config.sandbox)
    run = testing.run_in_copy(session.ws.root, setup, {})
    if run.output:
        chat.terminal.say(run.output)
    chat.terminal.say(f"(exit status {run.status}, in a sandboxed copy of the files)")
    return run.status, run.output


def _shell(chat: Chat, cmd: str) -> tuple[int, str]:
    """Run cmd in the repository folder, showing its output; (exit status, output)."""
    done = subprocess.run(
        cmd,
        shell=True,
        cwd=chat.session.ws.root,
        capture_output=True,
        text=True,
        errors="replace",
    )
    output = (done.stdout + done.stderr).strip()
    if output:
        chat.terminal.say(output)
    chat.terminal.say(f"(exit status {done.returncode})")
    return done.returncode, output
