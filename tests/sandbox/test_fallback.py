"""The fallback sandbox (no namespaces) holds what it claims: run as root, each run is a user
of its own that cannot kill its keeper, rewrite root's files or leave a control group, and
leaves nothing running or held in /dev/shm; under any user, the run ends when the harness
dies. Each case runs the real sandbox on hostile code."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sandbox import Limits
from sandbox.rlimits import Rlimits
from tests.harness_faults import open_python, python_for

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the run's own users need root")


def alive(marker: str) -> list[int]:
    """Processes whose command line holds marker."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
            except OSError:
                continue
    return found


def gone(marker: str, seconds: float = 30.0) -> bool:
    """Whether every process holding marker is gone within seconds (a slow machine's)."""
    deadline = time.monotonic() + seconds
    while alive(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def run(folder: Path, code: str, sandbox: Rlimits | None = None, **limits):
    python = python_for("rlimit")
    (folder / "attack.py").write_text(textwrap.dedent(code))
    sandbox = sandbox or Rlimits()
    return sandbox.run([python, "attack.py"], folder, Limits(**limits), ENV)


@as_root
def test_as_root_the_run_cannot_kill_its_keeper_and_leaves_nothing(tmp_path: Path) -> None:
    marker = f"{os.getpid()}5151"
    code = f"""
        import os, signal, subprocess
        subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
        try:
            os.kill(os.getppid(), signal.SIGKILL)
            print("killed the keeper")
        except OSError as exc:
            print("keeper refused", exc.errno)
    """
    outcome = run(tmp_path, code)
    assert "keeper refused" in outcome.output and outcome.status == 0, outcome
    assert gone(marker)


@as_root
def test_as_root_the_run_rewrites_no_file_root_owns_and_owns_its_folder(tmp_path: Path) -> None:
    owned = tmp_path / "root-owned.txt"
    owned.write_text("root's\n")
    owned.chmod(0o644)
    code = f"""
        import os
        try:
            open({str(owned)!r}, "a").write("the run's")
            print("rewrote it")
        except OSError as exc:
            print("refused", exc.errno)
        open("mine.txt", "w").write("x")
        print("uid", os.getuid())
    """
    folder = tmp_path / "work"
    folder.mkdir()
    outcome = run(folder, code)
    assert "refused" in outcome.output and owned.read_text() == "root's\n", outcome
    assert "uid 0" not in outcome.output
    # The folder is given back to its owner, whatever the run made in it.
    assert (folder / "mine.txt").stat().st_uid == os.geteuid()


@as_root
def test_as_root_the_run_moves_out_of_no_control_group(tmp_path: Path) -> None:
    code = """
        import glob, os
        moved = []
        for path in glob.glob("/sys/fs/cgroup/cgroup.procs") + glob.glob(
            "/sys/fs/cgroup/*/cgroup.procs"
        ):
            try:
                with open(path, "w") as f:
                    f.write(str(os.getpid()))
                moved.append(path)
            except OSError:
                pass
        print("moved:", moved)
    """
    outcome = run(tmp_path, code)
    assert "moved: []" in outcome.output, outcome


@as_root
def test_as_root_memory_held_in_dev_shm_counts_and_is_removed(tmp_path: Path) -> None:
    if not os.access("/dev/shm", os.W_OK):
        pytest.skip("no /dev/shm here")
    name = f"coder-test-{os.getpid()}"
    code = f"""
        import time
        with open("/dev/shm/{name}", "wb") as f:
            for _ in range(256):
                f.write(bytes(1024 * 1024))
        print("wrote 256 MiB", flush=True)
        time.sleep(20)
    """
    sandbox = Rlimits()
    sandbox.cgroups = False  # as on a machine without them: the watch must see it
    outcome = run(tmp_path, code, sandbox, memory=128 * 1024**2, seconds=15)
    assert outcome.exceeded == "memory", outcome
    assert not Path(f"/dev/shm/{name}").exists()


HARNESS = """
import sys
from pathlib import Path
from sandbox import Limits
from sandbox.rlimits import Rlimits
python, folder, marker = sys.argv[1:]
code = f"import subprocess, time; subprocess.Popen(['sleep', '{marker}']); time.sleep(300)"
print("running", flush=True)
Rlimits().run([python, "-c", code], Path(folder), Limits(seconds=600), {"PATH": "/usr/bin:/bin"})
"""
"""A harness that runs a command forever (its limit is ten minutes), to be killed."""


def _kill_the_harness(prefix: list[str], python: str, folder: Path, marker: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    harness = subprocess.Popen(
        [*prefix, python, "-c", HARNESS, python, str(folder), marker],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert harness.stdout is not None and harness.stdout.readline() == "running\n"
        deadline = time.monotonic() + 60
        while not alive(f"sleep\0{marker}") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert alive(f"sleep\0{marker}"), "the run never started"
        harness.send_signal(signal.SIGKILL)
        harness.wait()
        assert gone(marker), "the run went on after the harness died"
    finally:
        harness.kill()
        harness.wait()
        for pid in alive(marker):
            os.kill(pid, signal.SIGKILL)


def test_the_run_ends_when_the_harness_is_killed(tmp_path: Path) -> None:
    python = python_for("rlimit")
    _kill_the_harness([], python, tmp_path, f"{os.getpid()}6161")


@as_root
def test_the_run_of_a_plain_user_ends_when_its_harness_is_killed(tmp_path: Path) -> None:
    setpriv = shutil.which("setpriv")
    python = open_python()
    if setpriv is None or python is None:
        pytest.skip("setpriv, or an interpreter every user may run, is not here")
    folder = tmp_path / "nobody"
    folder.mkdir()
    os.chown(folder, 65534, 65534)
    user = [setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups"]
    _kill_the_harness(user, python, folder, f"{os.getpid()}7171")


def test_a_process_that_leaves_its_group_but_not_the_session_is_killed(tmp_path: Path) -> None:
    marker = f"{os.getpid()}8181"
    code = f"""
        import os, subprocess
        subprocess.Popen(["sleep", "{marker}"], process_group=0)
        os.kill(os.getppid(), 9)  # the keeper, where the run may signal it
    """
    run(tmp_path, code)
    assert gone(marker, seconds=10)


if sys.platform != "linux":
    pytestmark = pytest.mark.skip(reason="the keeper's guarantees are Linux's")
