"""A run that never started is told apart from a command that failed, by what the run itself
reports on its pipe, in every sandbox: a program that cannot be executed, a bubblewrap that
starts but finds nothing to run, a command that stops before it says it is ready. A command
that did start cannot forge either."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from sandbox import LAUNCHER_FLAGS, READY_VARIABLE, Limits, SandboxError, get_sandbox
from sandbox.launch import KEEPER
from tests.harness_faults import Hollow, python_for

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


def _kinds() -> list:
    kinds: list = ["rlimit", "none"]
    try:
        get_sandbox("bwrap")
        kinds.insert(0, "bwrap")
    except SandboxError as exc:
        kinds.insert(0, pytest.param("bwrap", marks=pytest.mark.skip(reason=str(exc))))
    return kinds


@pytest.fixture(params=_kinds())
def kind(request) -> str:
    return request.param


def hollow() -> Hollow:
    try:
        get_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(str(exc))
    return Hollow.find()


def test_a_command_that_runs_is_started_whatever_its_status(kind: str, tmp_path: Path) -> None:
    code = "import sys; print('ran'); sys.exit(7)"
    outcome = get_sandbox(kind).run([python_for(kind), "-c", code], tmp_path, Limits(), ENV)
    assert outcome.not_started is None
    assert outcome.status == 7 and outcome.output == "ran\n"


def test_a_program_that_cannot_be_executed_never_started(kind: str, tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-python")
    outcome = get_sandbox(kind).run([missing, "-c", "pass"], tmp_path, Limits(), ENV)
    assert outcome.not_started == f"cannot execute {missing}: No such file or directory"


def test_a_program_that_exits_127_itself_did_start(kind: str, tmp_path: Path) -> None:
    # What a shell prints for a missing command is the command's own failure, not the run's.
    command = ["/bin/sh", "-c", "echo 'sh: 1: nothing: not found' >&2; exit 127"]
    outcome = get_sandbox(kind).run(command, tmp_path, Limits(), ENV)
    assert outcome.not_started is None and outcome.status == 127


def test_bubblewrap_that_starts_but_finds_nothing_to_run(tmp_path: Path) -> None:
    outcome = hollow().run([sys.executable, "-c", "pass"], tmp_path, Limits(), ENV)
    assert outcome.not_started is not None
    assert outcome.not_started.startswith("the sandbox did not start: bwrap: execvp")


def test_a_command_that_stops_before_it_is_ready_never_started(kind: str, tmp_path: Path) -> None:
    code = "import sys; print('ModuleNotFoundError: no runner'); sys.exit(1)"
    command = [python_for(kind), "-c", code]
    outcome = get_sandbox(kind).run(command, tmp_path, Limits(), ENV, ready=True)
    assert outcome.not_started == "it ended before it was ready: ModuleNotFoundError: no runner"


READY_THEN_FORGE = f"""
import os, sys
fd = int(os.environ["{READY_VARIABLE}"])
os.write(fd, b"R")
os.close(fd)
# What runs after this is untrusted: it can no longer reach the report.
try:
    os.write(fd, b"Ecannot execute python: forged")
    print("forged")
except OSError:
    print("closed")
sys.exit(1)
"""


def test_after_it_is_ready_the_command_cannot_forge_a_harness_failure(
    kind: str, tmp_path: Path
) -> None:
    command = [python_for(kind), "-c", READY_THEN_FORGE]
    outcome = get_sandbox(kind).run(command, tmp_path, Limits(), ENV, ready=True)
    assert outcome.output == "closed\n", outcome.output
    assert outcome.not_started is None and outcome.status == 1


FORGE = """
import os
for fd in range(3, 64):
    try:
        os.write(fd, b"Ecannot execute python: forged")
        print("wrote", fd)
    except OSError:
        pass
"""


def test_a_command_not_asked_to_report_never_holds_the_report(kind: str, tmp_path: Path) -> None:
    outcome = get_sandbox(kind).run([python_for(kind), "-c", FORGE], tmp_path, Limits(), ENV)
    assert "wrote" not in outcome.output and outcome.not_started is None


SHELL_PARENT = f"""
import os, sys
fd = int(os.environ["{READY_VARIABLE}"])
os.write(fd, b"R")
os.close(fd)
# The shell that started this still holds the report: write there through its descriptor.
try:
    with open(f"/proc/{{os.getppid()}}/fd/{{fd}}", "wb", buffering=0) as report:
        report.write(b"Ecannot execute python: forged")
    print("wrote")
except OSError:
    print("could not")
"""


def test_what_runs_after_ready_is_not_believed_even_through_a_parent(
    kind: str, tmp_path: Path
) -> None:
    (tmp_path / "forge.py").write_text(SHELL_PARENT)
    # Two commands: the shell stays, as the parent of the first, holding the report.
    command = ["/bin/sh", "-c", f"{python_for(kind)} forge.py; exit 1"]
    outcome = get_sandbox(kind).run(command, tmp_path, Limits(), ENV, ready=True)
    assert outcome.not_started is None and outcome.status == 1, outcome


def test_what_a_ready_command_streams_is_kept_and_never_fills_the_pipe(
    kind: str, tmp_path: Path
) -> None:
    # Four times what a pipe holds: read as it comes, or the command would block until the
    # limit on wall time.
    code = (
        f"import os; fd = int(os.environ['{READY_VARIABLE}']); os.write(fd, b'R')\n"
        "for n in range(256): os.write(fd, b'line %04d ' % n + b'x' * 1014)\n"
    )
    outcome = get_sandbox(kind).run(
        [python_for(kind), "-c", code], tmp_path, Limits(seconds=30), ENV, ready=True
    )
    assert outcome.exceeded is None and outcome.not_started is None
    assert len(outcome.stream) == 256 * 1024 and outcome.stream.startswith("line 0000 ")


def test_a_script_with_the_launchers_flags_runs_in_its_process(kind: str, tmp_path: Path) -> None:
    # The test driver's start is spared a second interpreter; what it sees is what exec gives.
    code = (
        "import os, sys; print(sys.argv, 'resource' in sys.modules,"
        f" {READY_VARIABLE!r} in os.environ); sys.exit(3)"
    )
    command = [python_for(kind), *LAUNCHER_FLAGS, "-c", code, "a", "b c"]
    outcome = get_sandbox(kind).run(command, tmp_path, Limits(), ENV, ready=False)
    assert outcome.not_started is None and outcome.status == 3, outcome
    in_process = kind != "rlimit"  # the fallback keeps its command in a process of its own
    assert outcome.output == f"['-c', 'a', 'b c'] {in_process} False\n"


def test_the_keepers_flags_are_the_launchers() -> None:
    keeper = ast.parse(KEEPER.read_text())
    (value,) = [
        ast.literal_eval(node.value)
        for node in keeper.body
        if isinstance(node, ast.Assign) and node.targets[0].id == "LAUNCHER_FLAGS"
    ]
    assert tuple(value) == LAUNCHER_FLAGS


def test_a_script_run_in_the_launchers_process_holds_no_more_than_one_execd(
    kind: str, tmp_path: Path
) -> None:
    code = "import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))"
    sandbox, seen = get_sandbox(kind), []
    for flags in (LAUNCHER_FLAGS, ("-I",)):
        command = [python_for(kind), *flags, "-c", code]
        seen.append(sandbox.run(command, tmp_path, Limits(), ENV).output)
    assert seen[0] == seen[1] == "[0, 1, 2, 3]\n"  # 3: the listing's own
