"""/pick: the applied candidate's change replaced with another candidate's in the working tree,
as a new commit."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from coder.chat.turns import TurnOutcome
from coder.edits import editing, guard, saving
from coder.edits.editing import Proposal, unified_diff
from coder.edits.workspace import FileText, Workspace
from coder.errors import CoderError, UsageError
from coder.terminal import Terminal
from coder.trust.selection.selector import Choice
from editformats import ApplyResult

if TYPE_CHECKING:
    from coder.chat.session import Session


@dataclass(frozen=True)
class Swap:
    """What /pick wrote: the files involved, as they were before either change, as the new
    change wants them, and as they were just before the swap."""

    paths: list[str]
    originals: dict[str, FileText]
    wanted: dict[str, str]
    current: dict[str, FileText]


def swap(ws: Workspace, old: Proposal, new: Proposal, terminal: Terminal, dry_run: bool) -> Swap:
    """Show and (unless dry_run) write new's change in place of old's. CoderError, with
    nothing written, when a file changed since the candidates were made: old's since it was
    written, or one only new's change touches since it was read (new's text was made on the
    file as it was then, and writing it would lose the change)."""
    moved = [p for p, text in old.result.files.items() if ws.read(p).text != text]
    if moved:
        raise CoderError(f"{', '.join(moved)} changed since the choice: /pick would lose that")
    paths = sorted(set(old.result.files) | set(new.result.files))
    originals = old.originals | new.originals
    current = {p: ws.read(p) for p in paths}
    yours = [
        p
        for p in new.result.files
        if p not in old.result.files and _differs(current[p], new.originals[p])
    ]
    if yours:
        raise CoderError(
            f"{', '.join(yours)} changed since the candidates were made, and /pick would write"
            " over that change: nothing was written. Ask again for candidates made on the files"
            " as they are now."
        )
    wanted = {p: new.result.files.get(p, originals[p].text) for p in paths}
    terminal.diff(unified_diff({p: f.text for p, f in current.items() if f.exists}, wanted))
    return Swap(paths, originals, wanted, current)


def _differs(now: FileText, then: FileText) -> bool:
    return now.exists != then.exists or now.text != then.text


def _write(session: Session, done: Swap, new: Proposal) -> list[str]:
    """Write the swap as an edit is written: the user's own uncommitted work in those files
    (a staged version, say) committed first, on its own; then every file, or none. The files
    only the replaced change created are removed. The commits made."""
    writes = {
        p: t
        for p, t in done.wanted.items()
        if (done.originals[p].exists or p in new.result.files) and t != done.current[p].text
    }
    removed = tuple(
        p
        for p in done.paths
        if not done.originals[p].exists and p not in new.result.files and done.current[p].exists
    )
    scope = guard.scope_of(session.ws, session.repo, session.named)
    proposal = editing.vetted(ApplyResult(writes, deleted=removed), done.current, session.ws, scope)
    repo = session.repo if session.config.auto_commits else None
    saved = saving.write(proposal, session.ws, repo, save_user=done.paths)
    for path, copy in saved.backups.items():
        session.terminal.say(saving.backed_up(path, copy, session.ws.root))
    return saved.commits


def pick(session: Session, label: str) -> TurnOutcome:
    """Replace the chosen candidate's change with another candidate's, as a new commit."""
    made = session.selection
    if made is None or made.chosen is None:
        raise CoderError("there are no candidates to pick from: /pick works after a request")
    other = made.get(label)
    if other is None:
        labels = ", ".join(c.label for c in made.distinct)
        raise UsageError(f"no valid candidate {label!r}; the labels are {labels}")
    chosen = made.chosen
    if other.label == chosen.label:
        session.terminal.say(f"{other.label} is already applied.")
        return TurnOutcome()
    done = swap(
        session.ws, chosen.proposal, other.proposal, session.terminal, session.config.dry_run
    )
    if session.config.dry_run:
        return TurnOutcome()
    session.saves += _write(session, done, other.proposal)
    paths, originals, wanted, current = done.paths, done.originals, done.wanted, done.current
    picked = Choice(other.label, "Picked by the user.", rule="user")
    session.selection = replace(made, choice=picked)
    changed = tuple(p for p in paths if _differs(session.ws.read(p), current[p]))
    if session.last_edit is not None:
        after = {p: wanted[p] for p in paths if p in other.proposal.result.files}
        session.last_edit = replace(
            session.last_edit,
            before={p: originals[p].text for p in after if originals[p].exists},
            after=after,
        )
    if not changed or session.repo is None or not session.config.auto_commits:
        return TurnOutcome(changed=changed)
    message = f"coder: use candidate {other.label} instead"
    sha = saving.commit(session.repo, session.ws, list(changed), message)
    session.commits.append(sha)
    session.terminal.say(f"Committed {sha[:7]}: {', '.join(changed)}")
    return TurnOutcome(changed=changed, commits=(sha,))
