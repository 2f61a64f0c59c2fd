"""Whether a contained run's command ran at all, as the run itself reports it: the launcher
(keeper.py, run by this interpreter inside the sandbox) writes on a pipe that the sandbox
started and whether the command could be executed, and a command that takes part writes when
its own start-up is done. A run that never got that far failed for the harness's reasons,
which its exit status and output cannot tell apart from the command's own failure. What the
command writes there after it is ready (a test runner's account of each test as it ends) is
kept for the judge, read as it comes so that the pipe never fills."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import select
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox.base import MAX_OUTPUT, Outcome

KEEPER = Path(__file__).with_name("keeper.py")
LAUNCHER_FLAGS = ("-I", "-S", "-B")
"""Isolated (no environment variables, no user site), no site, no bytecode written: as
keeper.py's LAUNCHER_FLAGS, which must match."""
READY_VARIABLE = "SANDBOX_READY_FD"
"""Names, in a command's environment, the descriptor to write R on once it is ready."""
REASON_LINES = 12
"""Lines of a run's own output quoted as the reason it did not start."""


@functools.cache
def _source() -> str:
    # Given with -c: the sandbox need not see this package's folder.
    return KEEPER.read_text(encoding="utf-8")


class Launch:
    """One run's report pipe, and the command line that starts the command through the
    launcher: "exec" becomes the command, "keep" stays its parent and keeper."""

    def __init__(self, ready: bool = False, settings: Mapping[str, int] | None = None):
        self.ready = ready
        """Whether the command itself says when it is ready (see READY_VARIABLE)."""
        self.settings = dict(settings or {})
        """What the launcher enforces itself: tasks, parent, uid (see keeper.py)."""
        self.reader, self.writer = os.pipe()
        os.set_blocking(self.reader, False)
        self.received = bytearray()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def __enter__(self) -> Launch:
        return self

    def __exit__(self, *exc) -> None:
        self.handed_over()
        self._finish()
        os.close(self.reader)

    @property
    def fds(self) -> tuple[int, ...]:
        """The descriptors the run must inherit."""
        return (self.writer,)

    def argv(self, command: Sequence[str], mode: str) -> list[str]:
        """The launcher's command line around command."""
        ready = "ready" if self.ready else "-"
        launcher = [sys.executable, *LAUNCHER_FLAGS, "-c", _source()]
        settings = json.dumps(self.settings)
        return [*launcher, str(self.writer), mode, ready, settings, *command]

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """The run's environment, with the descriptor to report readiness on when asked."""
        return dict(env) | ({READY_VARIABLE: str(self.writer)} if self.ready else {})

    def judged(self, outcome: Outcome) -> Outcome:
        """The outcome, with why the command never ran when the report says it did not, and
        what the command wrote after it was ready (read once every process of the run is
        gone)."""
        report = self._report()
        said = report[2:] if report[:2] == b"SR" else b""
        return dataclasses.replace(
            outcome,
            not_started=self._reason(outcome, report),
            stream=said.decode(errors="replace"),
        )

    def _reason(self, outcome: Outcome, report: bytes) -> str | None:
        # Read in order, never searched: S from the launcher, then E and the reason from it
        # (the command never ran), or R from the command. Nothing that runs after R can be
        # believed, and nothing the command's solution does runs before it.
        if not report.startswith(b"S"):
            return f"the sandbox did not start: {_said(outcome)}"
        if report[1:2] == b"E":
            return report[2:].decode(errors="replace")
        if self.ready and report[1:2] != b"R":
            return f"it ended before it was ready: {_said(outcome)}"
        return None

    def handed_over(self) -> None:
        """Close this process's copy of the report's writing end, once the run has it: from
        then on only the run can write there (a run without namespaces could otherwise write
        through this process's descriptors)."""
        if self.writer >= 0:
            os.close(self.writer)
            self.writer = -1

    def _read(self) -> None:
        """Keep what the run writes, up to MAX_OUTPUT bytes, until every writer is gone (or
        the run is over and nothing more comes)."""
        with contextlib.suppress(OSError):
            while True:
                readable, _, _ = select.select([self.reader], [], [], 0.2)
                if not readable:
                    if self._done.is_set():
                        return
                    continue
                try:
                    chunk = os.read(self.reader, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    return
                self.received += chunk[: MAX_OUTPUT - len(self.received)]

    def _finish(self) -> None:
        self._done.set()
        self._thread.join()

    def _report(self) -> bytes:
        self._finish()
        return bytes(self.received)


def _said(outcome: Outcome) -> str:
    """What the run printed last, or how it ended if it printed nothing."""
    lines = [line for line in outcome.output.strip().splitlines() if line.strip()]
    if lines:
        return "\n".join(lines[-REASON_LINES:])
    if outcome.exceeded:
        return f"it passed the limit on {outcome.exceeded} first"
    return f"exit status {outcome.status}, and no output"
