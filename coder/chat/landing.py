"""Landing one request's edits: write what applied, commit it, or put the files back.

The first time a turn touches a file, the user's own uncommitted changes to it are committed
first and its text is kept, so that the turn can always say what it changed and undo it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from coder.chat.turns import TurnOutcome
from coder.edits import editing, saving
from coder.edits.workspace import FileText, Workspace
from coder.errors import GitError, NotCommitted, WriteError
from coder.seams.repo import Repo
from coder.terminal import Terminal
from coder.trust.rtc import Change
from editformats import ApplyResult


@dataclass
class Landing:
    """The files one request has written, and how its edits end: committed or undone."""

    ws: Workspace
    repo: Repo | None
    """Where the edits are committed; None: they are written and left uncommitted."""
    terminal: Terminal
    commits: list[str]
    """The session's commits of coder's edits, to which this turn's are added (for /undo)."""
    commit_message: Callable[[tuple[str, ...]], str]
    """The message of the commit of these changed files."""
    dry_run: bool = False
    """Show diffs but never write."""
    saves: list[str] = field(default_factory=list)
    """The session's commits of the user's own changes, saved before an edit touched them."""
    before: dict[str, FileText] = field(default_factory=dict)
    """The files this request has written, as they were before it."""
    written: dict[str, str | None] = field(default_factory=dict)
    """What coder last wrote to each file (None: it removed the file)."""
    chat: list[str] = field(default_factory=list)
    """The chat's files when the request began."""

    def write(self, proposal: editing.Proposal) -> bool:
        """Write what applied, after showing its diff; False (with the reason shown) when
        nothing could be written."""
        changed = proposal.result.changed
        if not changed:
            return True
        self.terminal.diff(proposal.diff())
        if self.dry_run:
            return True
        fresh = [p for p in changed if p not in self.before]
        try:
            saved = saving.write(proposal, self.ws, self.repo, save_user=fresh)
        except (GitError, WriteError) as exc:
            self.terminal.error(f"{exc}")
            return False
        self.saves += saved.commits
        for sha in saved.commits:
            self.terminal.say(f"Your uncommitted changes there were committed first: {sha[:7]}.")
        for path, copy in saved.backups.items():
            self.terminal.say(saving.backed_up(path, copy, self.ws.root))
        for path in fresh:
            self.before[path] = proposal.originals[path]
        self.written.update(proposal.result.files)
        self.written.update(dict.fromkeys(proposal.result.deleted))
        return True

    def changed(self) -> tuple[str, ...]:
        """The files whose text (or existence) differs from before the request, sorted."""
        return tuple(
            p for p in sorted(self.before) if _state(self.ws.read(p)) != _state(self.before[p])
        )

    def change(self, request: str, chat_files: list[str]) -> Change | None:
        """The request and the files before and after it, for the round-trip check; None when
        nothing changed."""
        changed = self.changed()
        if not changed:
            return None
        return Change(
            {p: self.before[p].text for p in changed if self.before[p].exists},
            {p: self.ws.read(p).text for p in changed},
            {p: self.ws.read(p).text for p in chat_files if p not in changed},
            request,
        )

    def finish(self, applied: bool = False) -> TurnOutcome:
        """Commit what changed; the outcome says what was committed and what was not."""
        changed = self.changed()
        if applied and not changed and not self.dry_run:
            self.terminal.say("The edits applied but change nothing: every file is as it was.")
        if not changed or self.repo is None:
            return TurnOutcome(changed=changed, applied=applied)
        try:
            sha = saving.commit(self.repo, self.ws, list(changed), self.commit_message(changed))
        except NotCommitted as exc:
            self.terminal.error(str(exc))
            return TurnOutcome(changed=changed, applied=applied, not_committed=exc.paths)
        self.commits.append(sha)
        self.terminal.say(f"Committed {sha[:7]}: {', '.join(changed)}")
        left = saving.not_committed(self.repo, self.ws, list(changed))
        for path, why in left.items():
            self.terminal.error(saving.left_out(path, why, self.ws))
        left_out = tuple(left)
        return TurnOutcome(changed=changed, commits=(sha,), applied=applied, not_committed=left_out)

    def undo(self) -> None:
        """Put back the files this request wrote, as they were before it; a file that changed
        since coder wrote it (the user edited it meanwhile) is left as it is."""
        current = {p: self.ws.read(p) for p in self.before}
        moved = [
            p for p in self.before if p not in self.written or _state(current[p]) != self.written[p]
        ]
        for path in moved:
            self.terminal.error(f"{path} changed since coder wrote it: it is left as it is.")
        back = {p: f for p, f in self.before.items() if p not in moved}
        # A file coder removed is written back in its own encoding.
        now = {
            p: f if f.exists else replace(f, encoding=self.before[p].encoding)
            for p, f in current.items()
        }
        modes = {p: f.mode for p, f in back.items() if f.exists and f.mode is not None}
        self.ws.write_all({p: f.text for p, f in back.items() if f.exists}, now, modes=modes)
        for path, original in back.items():
            if not original.exists:
                self.ws.remove(path)


def files_after(files: list[str], result: ApplyResult) -> list[str]:
    """The chat's files once result is written: those it renamed under their new names, those
    it deleted gone."""
    moved, gone = result.moved, set(result.deleted)
    return [moved.get(p, p) for p in files if p not in gone or p in moved]


def files_undone(files: list[str], before: list[str], after: list[str], ws: Workspace) -> list[str]:
    """The chat's files once a request's edits are taken back: the names the request brought in
    (a rename's new name) that no longer exist leave, and the files it took out (renamed or
    removed) that exist again return, each where it was; the rest stay."""
    brought = {p for p in after if p not in before and not ws.exists(p)}
    kept = [p for p in files if p not in brought]
    for n, path in enumerate(before):
        if path not in kept and path not in after and ws.exists(path):
            kept.insert(min(n, len(kept)), path)
    return kept


def _state(file: FileText) -> str | None:
    """A file's text, or None when it does not exist."""
    return file.text if file.exists else None
