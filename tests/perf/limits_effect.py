"""Benchmark: what a hostile run reaches before the limits stop it, in each sandbox this machine
can make, with and without a control group, as this user (and as a plain user, when run as
root and setpriv is there, for bubblewrap).

Each attack prints what it got as it goes; the figure is the last it printed: threads held in
one process (3,000 tried, limit 64), MiB held in /dev/shm (3 GiB tried in files of 64 MiB,
memory limit 2 GiB),
and how the run ended. Run:

    python tests/perf/limits_effect.py [--kinds bwrap,rlimit]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sandbox import SandboxError, get_sandbox  # noqa: E402
from tests.harness_faults import open_python  # noqa: E402

ATTACKS = {
    "threads": """
        import threading, time
        threading.stack_size(64 * 1024)  # small stacks: the limit on address space allows them
        n = 0
        try:
            for _ in range(3000):
                threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
                n += 1
                if n % 16 == 0:
                    print(n, flush=True)
        except RuntimeError:
            pass
        print(n, flush=True)
        time.sleep(5)
    """,
    "dev/shm MiB": """
        import time
        n = 0
        try:
            for part in range(48):  # files of 64 MiB: none passes the limit on file size
                with open(f"/dev/shm/coder-limits-effect-{part}", "wb") as f:
                    for _ in range(64):
                        f.write(bytes(1024 * 1024))
                        f.flush()
                        n += 1
                print(n, flush=True)
        except OSError:
            pass
        print(n, flush=True)
        time.sleep(5)
    """,
}

ONE = """
import json, sys
from pathlib import Path
from sandbox import Limits, get_sandbox
kind, cgroups, folder = sys.argv[1], sys.argv[2] == "1", Path(sys.argv[3])
sandbox = get_sandbox(kind)
sandbox.cgroups = sandbox.cgroups and cgroups
python = sys.executable
outcome = sandbox.run([python, "attack.py"], folder, Limits(seconds=30), {"PATH": "/usr/bin:/bin"})
lines = outcome.output.split()
print(json.dumps([lines[-1] if lines else "0", outcome.exceeded, outcome.status]))
"""


def measure(kind: str, cgroups: bool, attack: str, user: list[str], python: str) -> str:
    base = Path(tempfile.mkdtemp(prefix="coder-limits-"))
    base.chmod(0o711)
    folder = base / "run"
    folder.mkdir()
    (folder / "attack.py").write_text(textwrap.dedent(ATTACKS[attack]))
    if user:
        os.chown(folder, 65534, 65534)
        os.chown(folder / "attack.py", 65534, 65534)
    try:
        done = subprocess.run(
            [*user, python, "-c", ONE, kind, "1" if cgroups else "0", str(folder)],
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            return f"error: {done.stderr.strip().splitlines()[-1]}"
        reached, exceeded, status = json.loads(done.stdout.splitlines()[-1])
        return f"{reached:>5} ({'stopped: ' + exceeded if exceeded else f'exit {status}'})"
    finally:
        shutil.rmtree(base, ignore_errors=True)
        for left in Path("/dev/shm").glob("coder-limits-effect-*"):
            left.unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="bwrap,rlimit")
    args = parser.parse_args()
    python = open_python() or sys.executable
    users: list[tuple[str, list[str]]] = [("root" if os.geteuid() == 0 else "you", [])]
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv:
        users.append(("nobody", [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]))
    print(f"{'sandbox':8} {'user':7} {'cgroup':7} " + " ".join(f"{a:>28}" for a in ATTACKS))
    for kind in args.kinds.split(","):
        try:
            sandbox = get_sandbox(kind)
        except SandboxError as exc:
            print(f"{kind}: {exc}")
            continue
        for name, user in users:
            for cgroups in (True, False):
                if cgroups and (user or not sandbox.cgroups):
                    continue  # a plain user makes none here
                figures = [measure(kind, cgroups, a, user, python) for a in ATTACKS]
                row = f"{kind:8} {name:7} {'yes' if cgroups else 'no':7} "
                print(row + " ".join(f"{f:>28}" for f in figures), flush=True)


if __name__ == "__main__":
    main()
