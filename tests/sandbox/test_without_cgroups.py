"""Where no control group can be made (any user but root, most often), threads and /dev/shm do
not escape the limits: a run holding thousands of threads in one process, or gigabytes in
/dev/shm, is stopped or refused. Each case runs the real sandbox, its control group turned
off as on such a machine, and, where root can show it, as a plain user too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sandbox import Limits, SandboxError, get_sandbox
from tests.harness_faults import open_python, python_for

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
LIMIT = 32
THREADS = """
    import threading, time
    started = 0
    try:
        for _ in range(3000):
            threading.Thread(target=time.sleep, args=(20,), daemon=True).start()
            started += 1
    except RuntimeError:
        pass
    print("threads", started, flush=True)
    time.sleep(5)
"""
"""3,000 threads in one process, held."""


def _sandbox(kind: str):
    try:
        sandbox = get_sandbox(kind)
    except SandboxError as exc:
        pytest.skip(str(exc))
    sandbox.cgroups = False
    return sandbox


@pytest.mark.parametrize("kind", ["bwrap", "rlimit"])
def test_threads_count_against_the_limit_on_processes(kind: str, tmp_path: Path) -> None:
    sandbox = _sandbox(kind)
    (tmp_path / "threads.py").write_text(textwrap.dedent(THREADS))
    command = [python_for(kind), "threads.py"]
    outcome = sandbox.run(command, tmp_path, Limits(processes=LIMIT, seconds=30), ENV)
    started = [int(line.split()[1]) for line in outcome.output.splitlines() if "threads" in line]
    # Stopped by the watch, or refused by the kernel before the limit: never all 3,000.
    assert outcome.exceeded == "processes" or started[0] <= LIMIT, outcome


def test_dev_shm_in_bubblewrap_is_small_and_the_rest_of_dev_read_only(tmp_path: Path) -> None:
    sandbox = _sandbox("bwrap")
    code = """
        written = 0
        try:
            with open("/dev/shm/big", "wb") as f:
                for _ in range(1024):
                    f.write(bytes(1024 * 1024))
                    f.flush()
                    written += 1
        except OSError as exc:
            print("refused", exc.errno)
        print("MiB", written)
        try:
            open("/dev/big", "wb").write(b"x")
            print("wrote /dev")
        except OSError as exc:
            print("/dev refused", exc.errno)
    """
    (tmp_path / "shm.py").write_text(textwrap.dedent(code))
    limits = Limits(memory=256 * 1024**2, seconds=30)
    outcome = sandbox.run([sys.executable, "shm.py"], tmp_path, limits, ENV)
    written = [int(line.split()[1]) for line in outcome.output.splitlines() if "MiB" in line]
    assert outcome.exceeded == "memory" or written[0] <= 64, outcome
    assert "/dev refused" in outcome.output


PLAIN_USER = """
import json, sys
from pathlib import Path
from sandbox import Limits, get_sandbox
sandbox = get_sandbox("bwrap")
sandbox.cgroups = False
outcome = sandbox.run(
    [sys.executable, "threads.py"], Path(sys.argv[1]), Limits(processes=int(sys.argv[2])),
    {"PATH": "/usr/bin:/bin"},
)
print(json.dumps([outcome.exceeded, outcome.output]))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become a plain user")
def test_a_plain_users_threads_in_bubblewrap_are_refused_by_the_kernel(tmp_path: Path) -> None:
    setpriv, python = shutil.which("setpriv"), open_python()
    if setpriv is None or python is None:
        pytest.skip("setpriv, or an interpreter every user may run, is not here")
    _sandbox("bwrap")
    folder = tmp_path / "nobody"
    folder.mkdir()
    (folder / "threads.py").write_text(textwrap.dedent(THREADS))
    os.chown(folder, 65534, 65534)
    user = [setpriv, "--reuid", "65534", "--regid", "65534", "--clear-groups"]
    done = subprocess.run(
        [*user, python, "-c", PLAIN_USER, str(folder), str(LIMIT)],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "bubblewrap cannot" in done.stderr:
        pytest.skip(done.stderr.strip().splitlines()[-1])
    exceeded, output = json.loads(done.stdout.splitlines()[-1])
    started = [int(line.split()[1]) for line in output.splitlines() if "threads" in line]
    assert exceeded == "processes" or started[0] <= LIMIT, (exceeded, output)
