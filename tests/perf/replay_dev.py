"""Benchmark: how many real replies of ../shared/replay-dev reproduce the recorded after-state.

Each `applied` case runs through the same code as `coder --apply REPLY --edit-format FMT FILE...
--no-auto-commits` in a temporary copy of before/, and is scored as the replay-dev README says:
exact, equal up to whitespace, wrong, or not applied (with the reason). `aider_failed` cases
have no after-state; for them it counts how many now apply. Run:

    python tests/perf/replay_dev.py [--cases DIR] [--show wrong,failed]
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from coder.chat import offline
from coder.terminal import Terminal

DEFAULT_CASES = Path(__file__).resolve().parents[3] / "shared" / "replay-dev"


def tree(root: Path) -> dict[str, bytes]:
    """Every file below root, by relative path."""
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def loose(files: dict[str, bytes]) -> dict[str, str]:
    """Files compared up to trailing whitespace on lines and at the end."""
    out = {}
    for path, data in files.items():
        text = data.decode("utf-8", "replace").replace("\r\n", "\n")
        out[path] = "\n".join(line.rstrip() for line in text.split("\n")).rstrip()
    return out


def _own(folder: Path) -> None:
    """The copy is the user's own work tree: writable, whatever the source's modes."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR | (stat.S_IXUSR if path.is_dir() else 0))


def run_case(case: Path) -> tuple[str, str]:
    """(outcome, detail) of applying one case's reply to a copy of its before-state."""
    meta = json.loads((case / "meta.json").read_text())
    with tempfile.TemporaryDirectory() as work:
        work_dir = Path(work)
        if (case / "before").is_dir():
            shutil.copytree(case / "before", work_dir, dirs_exist_ok=True)
            _own(work_dir)
        start = tree(work_dir)
        err = io.StringIO()
        options = offline.ApplyOptions(
            reply=case / "reply.md",
            edit_format=meta["edit_format"],
            files=tuple(meta["files"]),
            auto_commits=False,
        )
        here = os.getcwd()
        os.chdir(work_dir)
        try:
            status = offline.run(options, Terminal(out=io.StringIO(), err=err))
        finally:
            os.chdir(here)
        got = tree(work_dir)
    if meta["outcome"] != "applied":
        return ("applies now" if status == 0 else "still fails"), _reason(err.getvalue())
    if status != 0:
        return "not applied", _reason(err.getvalue())
    expected = {**start, **tree(case / "after")}
    if got == expected:
        return "exact", ""
    if loose(got) == loose(expected):
        return "whitespace", ""
    if got == start:
        return "not applied", "nothing changed"
    differing = sorted(p for p in set(got) | set(expected) if got.get(p) != expected.get(p))
    return "wrong", ", ".join(differing)


def _reason(text: str) -> str:
    """The kind of failure, with file names and numbers taken out so that kinds can be counted."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    first = re.sub(r"\b[Bb]lock \d+", "block N", first)
    first = re.sub(r"\(lines [\d, ]+\)", "(lines ...)", first)
    return re.sub(r"\b\S+\.\w+\b", "FILE", first)[:110]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--show", default="", help="outcomes whose cases to list, e.g. wrong")
    args = parser.parse_args()
    cases = sorted(p for p in args.cases.iterdir() if (p / "meta.json").is_file())
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    reasons: collections.Counter = collections.Counter()
    shown = []
    for case in cases:
        fmt = json.loads((case / "meta.json").read_text())["edit_format"]
        outcome, detail = run_case(case)
        counts[fmt][outcome] += 1
        if outcome in ("not applied", "still fails"):
            reasons[f"{outcome}: {detail}"] += 1
        if outcome in args.show.split(","):
            shown.append(f"  {case.name} [{fmt}] {outcome}: {detail}")
    _print(counts, reasons, shown)


def _print(counts, reasons, shown) -> None:
    columns = ["exact", "whitespace", "wrong", "not applied", "applies now", "still fails"]
    print(f"{'format':<20}" + "".join(f"{c:>13}" for c in columns) + f"{'exact %':>10}")
    total: collections.Counter = collections.Counter()
    for fmt in sorted(counts):
        total.update(counts[fmt])
        print(_row(fmt, counts[fmt], columns))
    print(_row("all", total, columns))
    print("\nwhy replies did not apply:")
    for reason, n in reasons.most_common():
        print(f"  {n:4}  {reason}")
    if shown:
        print("\ncases:")
        print("\n".join(shown))


def _row(name: str, counter: collections.Counter, columns: list[str]) -> str:
    scored = sum(counter[c] for c in columns[:4])
    share = f"{100 * counter['exact'] / scored:.1f}" if scored else "-"
    return f"{name:<20}" + "".join(f"{counter[c]:>13}" for c in columns) + f"{share:>10}"


if __name__ == "__main__":
    main()
