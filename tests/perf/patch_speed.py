"""Benchmark: time to parse and apply a 1 MB V4A patch of many chunks, in memory and through
`coder --apply` (read, apply, write, commit) in a fresh git repository.

Shapes: 10,000 chunks changing one function each of a 50,000-line file (three kept lines
around each change); the same led by an @@ anchor each; 10,000 chunks whose lines are the
file's most common ones (so that every chunk has thousands of candidate places and needs its
anchor); 20 files of 250 chunks each. Processor time is given beside wall time, since the
machine is shared. Target (issue 26): well under a second for 1 MB. Run:

    python tests/perf/patch_speed.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from editformats import Reply, get_format

FUNCTIONS = 10_000


def make_file(functions: int, tag: str = "") -> list[str]:
    """A Python-like file of five lines per function; only the def lines are unique."""
    lines = []
    for n in range(functions):
        lines += [
            f"def {tag}function_{n}(value):",
            "    total = value * 2",
            "    print('computing', total)",
            "    return total",
            "",
        ]
    return lines


def unique_chunks(lines: list[str], anchored: bool, path: str) -> str:
    """One chunk per function, changing its print line, found by its def line: kept in the
    chunk, or named by an @@ line above it."""
    parts = [f"*** Update File: {path}\n"]
    for start in range(0, len(lines), 5):
        head = f"@@ {lines[start]}\n" if anchored else f"@@\n {lines[start]}\n"
        parts.append(
            f"{head} {lines[start + 1]}\n-{lines[start + 2]}\n"
            f"+    print('computed', total)\n {lines[start + 3]}\n"
        )
    return "".join(parts)


def common_chunks(lines: list[str], path: str) -> str:
    """One chunk per function made only of lines every function shares: its anchor alone
    says which function is meant."""
    parts = [f"*** Update File: {path}\n"]
    for start in range(0, len(lines), 5):
        parts.append(
            f"@@ {lines[start]}\n {lines[start + 1]}\n-{lines[start + 2]}\n"
            f"+    print('done', total)\n {lines[start + 3]}\n"
        )
    return "".join(parts)


def shapes() -> list[tuple[str, dict[str, str], str]]:
    """(name, files, patch) for each shape."""
    big = make_file(FUNCTIONS)
    text = "\n".join(big) + "\n"
    many = {f"m{k}.py": make_file(250, f"m{k}_") for k in range(20)}
    found = [
        ("10,000 chunks, no anchors", {"big.py": text}, unique_chunks(big, False, "big.py")),
        ("10,000 chunks, each anchored", {"big.py": text}, unique_chunks(big, True, "big.py")),
        ("10,000 chunks of common lines", {"big.py": text}, common_chunks(big, "big.py")),
        (
            "20 files of 250 chunks",
            {p: "\n".join(ls) + "\n" for p, ls in many.items()},
            "".join(unique_chunks(ls, False, p) for p, ls in many.items()),
        ),
    ]
    return [(n, f, f"*** Begin Patch\n{body}*** End Patch\n") for n, f, body in found]


def in_memory(files: dict[str, str], patch: str, repeat: int) -> tuple[float, float, float]:
    """Seconds to parse and to apply, in processor time (the least of the runs: other jobs of
    a shared machine hardly move it), and parse and apply in wall time (the median)."""
    fmt = get_format("patch")
    parsing, applying, walls = [], [], []
    for _ in range(repeat):
        wall, began = time.perf_counter(), time.process_time()
        edits = fmt.parse(Reply(patch))
        parsed = time.process_time()
        result = fmt.apply(edits, files)
        applying.append(time.process_time() - parsed)
        parsing.append(parsed - began)
        walls.append(time.perf_counter() - wall)
        assert result.ok, result.failures[0].reason[:2000]
        assert len(result.files) == len(files)
    return min(parsing), min(applying), statistics.median(walls)


def through_coder(files: dict[str, str], patch: str) -> float:
    """Seconds of `coder --apply` on a fresh repository holding files (the process's start and
    git's commands included)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for path, text in files.items():
            (root / path).write_text(text)
        env = {**os.environ, "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@example.com"}
        env |= {"GIT_COMMITTER_NAME": "p", "GIT_COMMITTER_EMAIL": "p@example.com"}
        for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "start"]):
            subprocess.run(["git", *args], cwd=root, check=True, env=env)
        (root.parent / f"{root.name}.patch").write_text(patch)
        command = [sys.executable, "-m", "coder.cli", "--apply", f"../{root.name}.patch"]
        began = time.perf_counter()
        done = subprocess.run(
            [*command, "--edit-format", "patch", *files], cwd=root, env=env, capture_output=True
        )
        elapsed = time.perf_counter() - began
        (root.parent / f"{root.name}.patch").unlink()
        assert done.returncode == 0, done.stderr.decode()[-2000:]
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for name, files, patch in shapes():
        size = sum(len(t) for t in files.values())
        parse, apply, wall = in_memory(files, patch, args.repeat)
        whole = through_coder(files, patch)
        print(
            f"{name}: patch {len(patch) / 1e6:.2f} MB on {size / 1e6:.2f} MB of files;"
            f" processor time: parse {parse:.3f} s, apply {apply:.3f} s (least of"
            f" {args.repeat}); wall time {wall:.3f} s (median); coder --apply end to end"
            f" {whole:.2f} s"
        )


if __name__ == "__main__":
    main()
