"""Parsing many files at once: in worker processes when there are many, because tree-sitter
holds the GIL while it parses (threads would take as long as one).

The workers are new Python processes reading their files' texts as JSON from a temporary file
and writing the tags back the same way; not multiprocessing, whose spawned workers re-import
the caller's main module, and whose forked ones copy locks the chat's threads may hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from coder.repomap.tags import FileTags, dumps, extract, loads

MANY = 200
"""From this many files on, they are parsed in worker processes (starting one costs about
0.1 s; parsing 200 typical files about 0.5 s)."""
MOST_WORKERS = 8

_WORKER = (
    "import sys; sys.path.insert(0, {root!r}); from coder.repomap import parsing; parsing.serve()"
)


def extract_all(texts: Mapping[str, str], workers: int | None = None) -> dict[str, FileTags]:
    """The tags of each path's text; in up to workers processes (default: one per processor
    this process may use) when there are MANY or more files."""
    workers = workers or _processors()
    if len(texts) < MANY or workers < 2:
        return {path: extract(path, text) for path, text in texts.items()}
    # Largest first, dealt round-robin, so that the workers take about as long as each other.
    items = sorted(texts.items(), key=lambda item: -len(item[1]))
    chunks = [items[i::workers] for i in range(workers)]
    with tempfile.TemporaryDirectory(prefix="coder-tags-") as folder:
        started = [_start(chunk, Path(folder) / str(n)) for n, chunk in enumerate(chunks)]
        found: dict[str, FileTags] = {}
        for chunk, (process, output) in zip(chunks, started, strict=True):
            found |= _finish(chunk, process, output)
    return found


def serve() -> None:
    """A worker's work: [[path, text], ...] as JSON on stdin, their tags' JSON on stdout."""
    items = json.load(sys.stdin)
    json.dump([dumps(extract(path, text)) for path, text in items], sys.stdout)


def _start(chunk: list[tuple[str, str]], base: Path) -> tuple[subprocess.Popen | None, Path]:
    """A worker parsing chunk, its output going to a file beside base; None when no process
    could be started."""
    source, output = base.with_suffix(".in"), base.with_suffix(".out")
    source.write_text(json.dumps(chunk), encoding="ascii")
    root = str(Path(__file__).resolve().parents[2])
    # Isolated (-I) and in the temporary folder: the user's folder is not on its path, so a
    # json.py there is never imported; what it writes to stderr (a Ctrl-C) is not shown.
    command = [sys.executable, "-I", "-c", _WORKER.format(root=root)]
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
) -> dict[str, FileTags]:
    """The tags the worker wrote; parsed in this process when it failed."""
    if process is not None and process.wait() == 0:
        try:
            answers = json.loads(output.read_text(encoding="ascii"))
            return {path: loads(t) for (path, _), t in zip(chunk, answers, strict=True)}
        except (OSError, ValueError, TypeError, KeyError):
            pass
    return {path: extract(path, text) for path, text in chunk}


def _processors() -> int:
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        count = os.cpu_count() or 1
    return min(count, MOST_WORKERS)
