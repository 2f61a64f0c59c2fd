"""Parsing files in worker processes, never in the chat's own: tree-sitter's parser can loop
forever on some inputs (the TSX `<a {{b:>c:d(e f)`, tree-sitter-typescript issue 323), or take
many seconds (a megabyte of stray quotes: 16 s), all in C, holding the GIL, so that neither a
timer nor Ctrl-C could stop it there. A worker gives each file at most FILE_SECONDS, and a file
that runs out of them, or crashes the parser, is left out. Many files are shared among workers,
one per processor: tree-sitter holds the GIL, so threads would take as long as one.

The workers are new Python processes reading their files' texts as JSON from a temporary file
and writing each file's tags, a line of JSON, as soon as they have them; not multiprocessing,
whose spawned workers re-import the caller's main module, and whose forked ones copy locks the
chat's threads may hold. Workers still running when the caller stops (Ctrl-C) are killed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from coder.repomap.tags import NO_TAGS, FileTags, dumps, extract, loads

MANY = 200
"""From this many files on, the map says that it is reading them (about 0.5 s of parsing)."""
PER_WORKER = 50
"""Another worker is started only for each this many files (starting one costs about 0.05 s,
as much as parsing 50 typical files)."""
FILE_SECONDS = 5.0
"""The most time a worker spends on one file (a megabyte of normal code takes under 1 s)."""
MOST_WORKERS = 8

_WORKER = (
    "import sys; sys.path.insert(0, {root!r}); from coder.repomap import parsing;"
    " parsing.serve({seconds!r})"
)

_Run = tuple[subprocess.Popen | None, Path]
"""A worker, None when none could be started, and the file it writes its tags to."""


def extract_all(texts: Mapping[str, str], workers: int | None = None) -> dict[str, FileTags]:
    """The tags of each path's text, found in up to workers processes (default: one per
    processor this process may use, one per PER_WORKER files)."""
    if not texts:
        return {}
    workers = max(1, min(workers or _processors(), len(texts) // PER_WORKER))
    # Largest first, dealt round-robin, so that the workers take about as long as each other.
    items = sorted(texts.items(), key=lambda item: -len(item[1]))
    chunks = [chunk for chunk in (items[i::workers] for i in range(workers)) if chunk]
    try:
        temporary = tempfile.TemporaryDirectory(prefix="coder-tags-", ignore_cleanup_errors=True)
    except OSError:  # no temporary folder (TMPDIR missing, the disk full): parse them here
        return {path: extract(path, text) for path, text in items}
    with temporary as folder:
        return _in_workers(chunks, Path(folder))


def _in_workers(chunks: list[list[tuple[str, str]]], folder: Path) -> dict[str, FileTags]:
    """The tags of the files of chunks, each chunk in a worker writing into folder."""
    found: dict[str, FileTags] = {}
    runs = 0
    while chunks:  # again for the files after one that stopped its worker
        started = [_start(chunk, folder / str(runs + n)) for n, chunk in enumerate(chunks)]
        runs += len(chunks)
        try:
            results = [_finish(chunk, *run) for chunk, run in zip(chunks, started, strict=True)]
        finally:
            _stop(started)
        for done, _ in results:
            found |= done
        chunks = [rest for _, rest in results if rest]
    return found


def serve(seconds: float = FILE_SECONDS) -> None:
    """A worker's work: [[path, text], ...] as JSON on stdin; on stdout, each file's tags as
    a line of JSON, as soon as it has them. A file that takes more than seconds ends the
    worker (SIGALRM's default action), as a crash in the parser would."""
    limit = getattr(signal, "setitimer", None)  # not on Windows
    for path, text in json.load(sys.stdin):
        if limit is not None:
            limit(signal.ITIMER_REAL, seconds)
        tags = extract(path, text)
        if limit is not None:
            limit(signal.ITIMER_REAL, 0)
        sys.stdout.write(json.dumps(dumps(tags)) + "\n")
        sys.stdout.flush()


def _start(chunk: list[tuple[str, str]], base: Path) -> _Run:
    """A worker parsing chunk, its output going to a file beside base; None when none could
    be started (the folder cannot be written, no Python to run)."""
    source, output = base.with_suffix(".in"), base.with_suffix(".out")
    root = str(Path(__file__).resolve().parents[2])
    # Isolated (-I) and in the temporary folder: the user's folder is not on its path, so a
    # json.py there is never imported; what it writes to stderr (a Ctrl-C) is not shown.
    command = [sys.executable, "-I", "-c", _WORKER.format(root=root, seconds=FILE_SECONDS)]
    try:
        source.write_text(json.dumps(chunk), encoding="ascii")
        with source.open("rb") as stdin, output.open("wb") as stdout:
            process = subprocess.Popen(
                command, stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL, cwd=base.parent
            )
            return process, output
    except OSError:
        return None, output


def _finish(
    chunk: list[tuple[str, str]], process: subprocess.Popen | None, output: Path
) -> tuple[dict[str, FileTags], list[tuple[str, str]]]:
    """The tags the worker wrote, and the files still to parse in another worker. A worker
    ended by a signal stopped on the file after the last it wrote: out of time, or crashed;
    that file is left out (NO_TAGS). A worker that could not run at all (no process, or an
    error before the first file) leaves its files to be parsed in this process."""
    status = process.wait() if process is not None else None
    done: dict[str, FileTags] = {}
    if status is not None:
        try:
            with output.open(encoding="ascii") as lines:
                for (path, _), line in zip(chunk, lines, strict=False):
                    done[path] = loads(json.loads(line))
        except (OSError, ValueError, TypeError, KeyError):  # a line cut short by the kill
            pass
    left = chunk[len(done) :]
    if status is not None and status < 0 and left:
        return done | {left[0][0]: NO_TAGS}, left[1:]
    return done | {path: extract(path, text) for path, text in left}, []


def _stop(started: list[_Run]) -> None:
    """Kill the workers still running (the caller was interrupted) and reap them all."""
    for process, _ in started:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


def _processors() -> int:
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        count = os.cpu_count() or 1
    return min(count, MOST_WORKERS)
