"""What a contained run is asked for and what it gives back: the limits on the whole process
tree, the outcome, and the protocol every kind of sandbox follows."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

MAX_OUTPUT = 1_000_000
"""Bytes of output kept from one run (the rest is dropped, and the output says so)."""


@dataclass(frozen=True)
class Limits:
    """Limits on everything a run starts, taken together, not per process."""

    seconds: float = 60.0
    """Wall time from start to the last process's end."""
    cpu_seconds: float = 120.0
    """Processor time of all the run's processes together."""
    memory: int = 2 * 1024**3
    """Bytes of memory all the run's processes may hold at once."""
    processes: int = 64
    """Processes (threads included where the kernel counts them) alive at once."""
    file_size: int = 256 * 1024**2
    """Bytes any one file written may reach."""
    disk: int = 1024**3
    """Bytes the run may have written at once in its folder, /tmp and /dev/shm together (what
    its folder held before it started not counted)."""
    files: int = 20_000
    """Files and folders the run may have made at once in those places (likewise)."""


@dataclass(frozen=True)
class Peak:
    """The most a run held at once, and the processor time it took, as its control group
    counted them (exactly, between two looks too); None where the kernel does not say."""

    processes: int | None
    """Processes and threads alive at once (pids.peak: Linux 6.1 on)."""
    memory: int | None
    """Bytes of memory held at once, the page cache of the files it wrote included."""
    cpu_seconds: float | None


@dataclass(frozen=True)
class Outcome:
    """How a contained run ended. Nothing it started is still running."""

    status: int | None
    """The command's exit status; None when it was killed for a limit (see exceeded)."""
    output: str
    """Its standard output and error, interleaved, decoded with replacement characters."""
    exceeded: str | None = None
    """The limit that ended it: "time", "cpu", "memory", "processes", "disk" or "files"; None
    if none did."""
    seconds: float = 0.0
    not_started: str | None = None
    """Why the command never ran, as the run reported it (the sandbox did not start, the
    program could not be executed, or, when asked to say so, it ended before it was ready):
    a failure of the harness, not of the command; None when it ran."""
    stream: str = ""
    """What the command wrote on its report pipe after it said it was ready (a test runner's
    account of each test as it ends); like its output, written by code that may be hostile."""
    peak: Peak | None = None
    """What the run used at most; None without a control group (its processes were sampled,
    which misses what lives between two looks)."""


class SandboxError(Exception):
    """The sandbox asked for cannot be set up on this machine, with the reason."""


class Sandbox(Protocol):
    """Runs a command on the files of one folder, which is all it may write."""

    kind: str
    """Its name, as --sandbox takes it: "bwrap", "rlimit" or "none"."""
    description: str
    """What is in force, in a sentence, for the start of a run."""

    def run(
        self,
        command: Sequence[str],
        folder: Path,
        limits: Limits,
        env: Mapping[str, str],
        cancel: threading.Event | None = None,
        ready: bool = False,
        shared: Sequence[Path] = (),
    ) -> Outcome:
        """Run command with folder as its working directory (and only writable place), with
        exactly env as its environment, within limits; setting cancel stops it (exceeded is
        then "cancelled"). With ready, the command writes one byte to the descriptor that
        $SANDBOX_READY_FD names once its own start-up is done, before it runs anything
        untrusted, and closes it; a run that never does counts as not started. shared: folders
        the run reads besides the system's (a toolchain, a prepared cache), never writes."""
        ...
