"""Parsing many files at once: in worker processes when there are many, or much text, because
tree-sitter holds the GIL while it parses (threads would take as long as one), and because a
crafted file can take it many seconds: a worker gives each file at most FILE_SECONDS, and a
file that runs out of them, or crashes the parser, is left out.

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
"""From this many files on, they are parsed in worker processes (starting one costs about
0.1 s; parsing 200 typical files about 0.5 s)."""
IN_PROCESS_CHARS = 256_000
"""Files holding more characters than this in all are parsed in worker processes too: normal
code this long takes 0.06 s, but crafted text (stray quotes, unclosed brackets) takes
tree-sitter about a second, and a megabyte of it 16 s, which only a worker can cut short."""
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
    """The tags of each path's text; in up to workers processes (default: one per processor
    this process may use) when there are MANY or more files, or more than IN_PROCESS_CHARS."""
    if len(texts) < MANY and sum(len(text) for text in texts.values()) <= IN_PROCESS_CHARS:
        return {path: extract(path, text) for path, text in texts.items()}
    workers = workers or _processors()
    # Largest first, dealt round-robin, so that the workers take about as long as each other.
    items = sorted(texts.items(), key=lambda item: -len(item[1]))
    chunks = [chunk for chunk in (items[i::workers] for i in range(workers)) if chunk]
    found: dict[str, FileTags] = {}
    with tempfile.TemporaryDirectory(prefix="coder-tags-") as folder:
        runs = 0
        while chunks:  # again for the files after one that stopped its worker
            started = [
                _start(chunk, Path(folder) / str(runs + n)) for n, chunk in enumerate(chunks)
            ]
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
    """A worker parsing chunk, its output going to a file beside base."""
    source, output = base.with_suffix(".in"), base.with_suffix(".out")
    source.write_text(json.dumps(chunk), encoding="ascii")
    root = str(Path(__file__).resolve().parents[2])
    # Isolated (-I) and in the temporary folder: the user's folder is not on its path, so a
    # json.py there is never imported; what it writes to stderr (a Ctrl-C) is not shown.
    command = [sys.executable, "-I", "-c", _WORKER.format(root=root, seconds=FILE_SECONDS)]
    try:
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
