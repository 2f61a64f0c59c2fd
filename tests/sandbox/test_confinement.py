"""What a run inside bubblewrap may not do to see past its sandbox: debug bubblewrap's init,
make namespaces of its own, mount, watch host folders, read bwrap's arguments; and what it
finds of the host's folders (mountinfo) does not leave the run."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from exercism import load, run_tests
from sandbox import Limits, SandboxError, get_sandbox
from sandbox.redaction import host_places

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
PRACTICE = Path(__file__).resolve().parents[1] / "exercism" / "practice"

ATTEMPTS = """
import ctypes, errno, json, os
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    done = getattr(libc, name)(*args)
    return "ok" if done >= 0 else errno.errorcode[ctypes.get_errno()]
found = {
    "ptrace bwrap's init": call("ptrace", 16, 1, 0, 0),
    "a user namespace": call("unshare", 0x10000000),
    "a network namespace": call("unshare", 0x40000000),
    "a mount namespace by clone": call("syscall", 56, 0x00020000 | 17, 0, 0, 0, 0),
    "enter a namespace": call("setns", -1, 0),  # refused before the descriptor is looked at
    "mount": call("mount", b"none", b"/tmp", b"tmpfs", 0, None),
    "watch a host folder": call("inotify_init1", 0),
    "fanotify": call("fanotify_init", 0, 0),
    "keyrings": call("syscall", 250, 0, 0, 0, 0, 0),
    "bpf": call("syscall", 321, 0, 0, 0),
    "userfaultfd": call("syscall", 323, 0),
}
with open("/proc/1/cmdline", "rb") as f:
    found["init's arguments"] = f.read().decode(errors="replace")
print(json.dumps(found))
"""
DENIED = (
    "ptrace bwrap's init",
    "a user namespace",
    "a network namespace",
    "a mount namespace by clone",
    "enter a namespace",
    "mount",
    "watch a host folder",
    "fanotify",
    "keyrings",
    "bpf",
    "userfaultfd",
)


@pytest.fixture
def bwrap():
    try:
        return get_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(str(exc))


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the attempts use x86_64 numbers")
def test_the_run_cannot_debug_unshare_mount_or_watch(bwrap, tmp_path: Path) -> None:
    (tmp_path / "attempts.py").write_text(ATTEMPTS)
    outcome = bwrap.run([sys.executable, "attempts.py"], tmp_path, Limits(), ENV)
    assert outcome.status == 0, outcome.output
    found = json.loads(outcome.output)
    assert {name: found[name] for name in DENIED} == dict.fromkeys(DENIED, "EPERM")
    # bwrap's options (every host folder it binds) are not on its command line.
    assert str(tmp_path) not in found["init's arguments"]
    assert "--ro-bind" not in found["init's arguments"]


def test_a_run_still_starts_processes_and_threads(bwrap, tmp_path: Path) -> None:
    # clone3 says it does not exist; the C library falls back to clone.
    code = textwrap.dedent("""
        import subprocess, threading
        t = threading.Thread(target=print, args=("thread",)); t.start(); t.join()
        print(subprocess.run(["echo", "child"], capture_output=True, text=True).stdout.strip())
    """)
    outcome = bwrap.run([sys.executable, "-c", code], tmp_path, Limits(), ENV)
    assert (outcome.status, outcome.output.split()) == (0, ["thread", "child"])


def test_host_folders_found_in_the_sandbox_do_not_reach_the_model() -> None:
    # A wrong solution prints what the sandbox shows of the host: mount sources, init's
    # arguments, where Python lies. The output the model gets names none of those folders.
    exercise = load(PRACTICE / "initials")
    code = textwrap.dedent("""
        import sys
        def initials(name):
            with open("/proc/self/mountinfo") as f:
                mounts = f.read()
            with open("/proc/1/cmdline", "rb") as f:
                init = f.read().decode(errors="replace")
            print(mounts, init, sys.prefix, sys.executable)
            return mounts + init + sys.prefix
    """)
    run = run_tests(exercise, {"initials.py": code})
    assert not run.passed and "mountinfo" not in run.output
    assert "<python>" in run.output
    for place in host_places(Path("/nowhere"), "/sandbox"):
        if place != "/nowhere":
            assert place not in run.output, place
