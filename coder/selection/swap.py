"""/pick: the applied candidate's change replaced with another candidate's in the working tree."""

from __future__ import annotations

from dataclasses import dataclass

from coder.editing import Proposal, unified_diff
from coder.errors import CoderError
from coder.terminal import Terminal
from coder.workspace import FileText, Workspace


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
