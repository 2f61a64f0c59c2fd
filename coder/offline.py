"""`coder --apply`: apply a saved reply to the chat files, with no model and no API key."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder import editing
from coder.errors import PathError, UsageError
from coder.repo import Repo
from coder.terminal import Terminal
from coder.workspace import Workspace
from editformats import Reply, ReplyError, feedback, get_format

EXIT_OK, EXIT_FAILED = 0, 1
"""Every edit applied; an edit failed or the reply was unusable (nothing was written)."""


@dataclass(frozen=True)
class ApplyOptions:
    """What `coder --apply` was asked to do."""

    reply: Path
    """The file holding the reply text (JSON for the function formats)."""
    edit_format: str
    """Name of the edit format the reply is written in."""
    files: tuple[str, ...]
    """The files in the chat, as given on the command line."""
    yes: bool = False
    """Answer yes to questions (creating a git repository)."""
    auto_commits: bool = True
    """Commit the changed files, after the user's own uncommitted changes to them."""
    dry_run: bool = False
    """Print the diff and write nothing."""
    color: bool = False
    """Color the output."""


def run(options: ApplyOptions, terminal: Terminal) -> int:
    """Apply the reply; write and commit only if every edit applies. Returns the exit status."""
    try:
        fmt = get_format(options.edit_format)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    reply = _read_reply(options.reply)
    repo, ws = _open(options)
    try:
        chat = [ws.relative(name) for name in options.files]
    except PathError as exc:
        raise UsageError(str(exc)) from None
    try:
        proposal = editing.propose(fmt, reply, ws, chat)
    except ReplyError as exc:
        terminal.error(f"The reply could not be read as {fmt.name} edits:\n{exc}")
        return EXIT_FAILED
    result = proposal.result
    if not result.applied and not result.failures:
        terminal.error("The reply contains no edits.")
        return EXIT_FAILED
    if not result.ok:
        terminal.error(feedback.failure_message(result, kept=False))
        terminal.error(f"Nothing was changed: {len(result.failures)} edit(s) failed.")
        return EXIT_FAILED
    if options.dry_run:
        terminal.diff(proposal.diff())
        return EXIT_OK
    if repo is not None and result.files and not repo.has_identity():
        raise UsageError(
            "git needs your name and email to commit: run git config --global user.name"
            " 'Your Name' and git config --global user.email you@example.com,"
            " or pass --no-auto-commits"
        )
    commits = editing.save(proposal, ws, repo, editing.commit_message(result))
    _report(result, commits, terminal)
    return EXIT_OK


def _read_reply(path: Path) -> Reply:
    try:
        return Reply(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise UsageError(f"cannot read the reply {path}: {exc.strerror}") from None


def _open(options: ApplyOptions) -> tuple[Repo | None, Workspace]:
    """The repository to commit to (None when not committing) and the workspace to edit."""
    cwd = Path.cwd()
    repo = Repo.find(cwd)
    if repo is None and options.auto_commits and not options.dry_run:
        if not options.yes:
            raise UsageError(
                f"{cwd} is not in a git repository: run git init, pass --yes to let coder"
                " create one, or pass --no-auto-commits to edit without commits"
            )
        repo = Repo.init(cwd)
    root = repo.root if repo is not None else cwd
    if not options.auto_commits or options.dry_run:
        return None, Workspace(root)
    return repo, Workspace(root)


def _report(result, commits: list[str], terminal: Terminal) -> None:
    by_file: dict[str, list[str]] = {}
    for applied in result.applied:
        by_file.setdefault(applied.path, []).append(applied.how)
    for path, hows in sorted(by_file.items()):
        state = "unchanged" if path not in result.files else f"{len(hows)} edit(s)"
        tolerant = sorted({h for h in hows if h not in ("exact", "whole", "created")})
        note = f" ({', '.join(tolerant)})" if tolerant else ""
        terminal.say(f"{path}: {state}{note}")
    for sha in commits:
        terminal.say(f"committed {sha[:7]}")
