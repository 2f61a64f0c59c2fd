"""`coder --apply`: apply a saved reply to the chat files, with no model and no API key."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from coder import exits
from coder.edits import editing, guard, saving
from coder.edits.workspace import Workspace
from coder.errors import GitError, NotCommitted, PathError, UsageError, WriteError
from coder.seams.repo import Repo
from coder.terminal import Terminal
from editformats import EditFormat, Reply, ReplyError, TruncatedReply, feedback, get_format


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
    repo, found, ws = _open(options)
    try:
        chat = [ws.relative(os.path.expanduser(name)) for name in options.files]
    except PathError as exc:
        raise UsageError(str(exc)) from None
    scope = guard.scope_of(ws, found, set(chat))
    try:
        proposal, _, _ = editing.propose_asking(fmt, reply, ws, chat, scope, terminal)
    except TruncatedReply as exc:
        terminal.error(f"The reply was cut off, so nothing was changed:\n{exc}")
        return exits.FAILED
    except ReplyError as exc:
        terminal.error(f"The reply could not be read as {fmt.name} edits:\n{exc}")
        terminal.error("Nothing was changed: the reply could not be read." + _hint(reply, fmt))
        return exits.FAILED
    result = proposal.result
    if not result.applied and not result.failures:
        terminal.error("The reply contains no edits: nothing was changed." + _hint(reply, fmt))
        return exits.FAILED
    if not result.ok:
        terminal.error(feedback.failure_message(result, kept=False))
        terminal.error(f"Nothing was changed: {len(result.failures)} edit(s) failed.")
        return exits.FAILED
    if options.dry_run:
        terminal.diff(proposal.diff())
        return exits.OK
    if repo is not None and result.changed and not repo.has_identity():
        raise UsageError(
            "git needs your name and email to commit: run git config --global user.name"
            " 'Your Name' and git config --global user.email you@example.com,"
            " or pass --no-auto-commits"
        )
    try:
        saved = saving.save(proposal, ws, repo, saving.commit_message(result))
    except NotCommitted as exc:
        terminal.error(f"coder: {exc}")
        return exits.NOT_COMMITTED
    except GitError as exc:
        raise UsageError(str(exc)) from None
    except WriteError as exc:
        terminal.error(f"coder: {exc}")
        return exits.FAILED
    _report(result, saved.commits, terminal)
    for path, copy in saved.backups.items():
        terminal.say(saving.backed_up(path, copy, ws.root))
    if repo is not None and saved.commits and repo.detached():
        terminal.say(
            "HEAD is detached, so these commits are on no branch: git switch -c NAME keeps"
            " them on a new branch."
        )
    if repo is None:
        return exits.OK
    left = saving.not_committed(repo, ws, list(result.changed))
    for path, why in left.items():
        terminal.error(saving.left_out(path, why, ws))
    return exits.NOT_COMMITTED if left else exits.OK


HINTED = ("patch", "udiff", "diff", "whole", "patch-func", "diff-func", "whole-func")
"""The formats a reply is tried in, in this order, when it holds no edits of the one asked for:
the strictest first, as whole reads a fenced file in almost any reply."""


def _hint(reply: Reply, fmt: EditFormat) -> str:
    """A sentence naming the format the reply is written in, when it is another than fmt."""
    for name in HINTED:
        if name == fmt.name:
            continue
        try:
            edits = get_format(name).parse(reply)
        except ReplyError:
            continue
        if edits:
            return f" It reads as {name} edits: pass --edit-format {name}."
    return ""


def _read_reply(path: Path) -> Reply:
    try:
        return Reply(path.read_bytes().decode("utf-8-sig"))
    except OSError as exc:
        raise UsageError(f"cannot read the reply {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"the reply {path} is not UTF-8 text (byte {exc.start:,} is not), so it is not used"
        ) from None


def _open(options: ApplyOptions) -> tuple[Repo | None, Repo | None, Workspace]:
    """The repository to commit to (None when not committing), the repository found (for its
    file list), and the workspace to edit."""
    cwd = Path.cwd()
    repo = Repo.find(cwd)
    if repo is None and options.auto_commits and not options.dry_run:
        if not options.yes:
            raise UsageError(
                f"{cwd} is not in a git repository: run git init, pass --yes to let coder"
                " create one, or pass --no-auto-commits to edit without commits"
            )
        repo = Repo.init(cwd)
    ws = Workspace(repo.root if repo is not None else cwd)
    if not options.auto_commits or options.dry_run:
        return None, repo, ws
    return repo, repo, ws


def _report(result, commits: list[str], terminal: Terminal) -> None:
    by_file: dict[str, list] = {}
    for applied in result.applied:
        by_file.setdefault(applied.path, []).append(applied)
    for path, done in sorted(by_file.items()):
        hows = [a.how for a in done]
        touched = path in result.files or path in result.deleted
        if path in result.moved:
            state = f"moved to {result.moved[path]}"
        elif path in result.deleted:
            state = "deleted"
        elif not touched:
            state = "already as the reply wants it, unchanged"
        else:
            state = f"{len(hows)} edit(s)"
        plain = ("exact", "whole", "created", "deleted", "moved")
        tolerant = sorted({h for h in hows if h not in plain})
        note = f" ({', '.join(tolerant)})" if tolerant and touched else ""
        terminal.say(f"{path}: {state}{note}")
        for a in done:
            if a.note:
                terminal.say(f"  block {a.edit.index}: {a.note}")
    for sha in commits:
        terminal.say(f"committed {sha[:7]}")
