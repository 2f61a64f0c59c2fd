"""/pick: the applied candidate's change replaced with another candidate's in the working tree,
as a new commit."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from coder.chat.turns import TurnOutcome
from coder.edits.editing import Proposal, unified_diff
from coder.edits.workspace import FileText, Workspace
from coder.errors import CoderError, UsageError
from coder.terminal import Terminal
from coder.trust.selection.selector import Choice

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
    """Show and (unless dry_run) write new's change in place of old's; CoderError when a file
    changed since old was written, since the swap would lose that."""
    moved = [p for p, text in old.result.files.items() if ws.read(p).text != text]
    if moved:
        raise CoderError(f"{', '.join(moved)} changed since the choice: /pick would lose that")
    paths = sorted(set(old.result.files) | set(new.result.files))
    originals = old.originals | new.originals
    wanted = {p: new.result.files.get(p, originals[p].text) for p in paths}
    current = {p: ws.read(p) for p in paths}
    terminal.diff(unified_diff({p: f.text for p, f in current.items() if f.exists}, wanted))
    if not dry_run:
        ws.write_all({p: t for p, t in wanted.items() if originals[p].exists or t}, current)
        for path in paths:
            if not originals[path].exists and path not in new.result.files:
                ws.remove(path)
    return Swap(paths, originals, wanted, current)


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
    paths, originals, wanted, current = done.paths, done.originals, done.wanted, done.current
    picked = Choice(other.label, "Picked by the user.", rule="user")
    session.selection = replace(made, choice=picked)
    changed = tuple(p for p in paths if session.ws.read(p).text != current[p].text)
    if session.last_edit is not None:
        after = {p: wanted[p] for p in paths if p in other.proposal.result.files}
        session.last_edit = replace(
            session.last_edit,
            before={p: originals[p].text for p in after if originals[p].exists},
            after=after,
        )
    if not changed or session.repo is None or not session.config.auto_commits:
        return TurnOutcome(changed=changed)
    sha = session.repo.commit(list(changed), f"coder: use candidate {other.label} instead")
    session.commits.append(sha)
    session.terminal.say(f"Committed {sha[:7]}: {', '.join(changed)}")
    return TurnOutcome(changed=changed, commits=(sha,))
