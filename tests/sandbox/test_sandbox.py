"""Hostile code in each sandbox this machine can make (the real bubblewrap when it is installed,
the fallback always): it finds no secret, writes nothing outside its folder, leaves no process
behind, and is stopped by the limits on its whole process tree."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from sandbox import Limits, SandboxError, get_sandbox, redact, secret_values
from sandbox.cgroups import Group
from tests.harness_faults import python_for

CANARY = "sk-canary-5f3a9c2e7b1d"
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


def _kinds() -> list:
    kinds = []
    try:
        get_sandbox("bwrap")
        kinds.append("bwrap")
    except SandboxError as exc:
        kinds.append(pytest.param("bwrap", marks=pytest.mark.skip(reason=str(exc))))
    return [*kinds, "rlimit"]


@pytest.fixture(params=_kinds())
def kind(request) -> str:
    return request.param


def run(kind: str, folder: Path, code: str, **limits):
    (folder / "attack.py").write_text(textwrap.dedent(code))
    sandbox = get_sandbox(kind)
    return sandbox.run([python_for(kind), "attack.py"], folder, Limits(**limits), ENV)


def alive(marker: str) -> list[int]:
    """Processes whose command line holds marker."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(name))
    return found


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    return work


def test_a_plain_run_gives_its_status_and_output(kind: str, folder: Path) -> None:
    outcome = run(kind, folder, "print('hello')\nraise SystemExit(3)\n")
    assert outcome.status == 3 and outcome.output == "hello\n" and outcome.exceeded is None


def test_no_secret_of_the_parent_is_readable(kind: str, folder: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    code = f"""
        import os
        found = [k for k, v in os.environ.items() if {CANARY!r} in v]
        for pid in os.listdir("/proc"):
            for part in ("environ", "cmdline", "mem"):
                try:
                    with open(f"/proc/{{pid}}/{{part}}", "rb") as f:
                        if {CANARY!r}.encode() in f.read(10_000_000):
                            found.append(f"{{pid}}/{{part}}")
                except Exception:
                    pass
        print("found:", found)
    """
    outcome = run(kind, folder, code)
    assert "found: []" in outcome.output, outcome.output


def test_nothing_outside_the_folder_is_written_by_bwrap(folder: Path, tmp_path: Path) -> None:
    try:
        get_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(str(exc))
    target = tmp_path / "outside.txt"
    home = Path.home() / f".coder-sandbox-probe-{os.getpid()}"
    code = f"""
        for path in ({str(target)!r}, {str(home)!r}, "/tmp/../{target.name}", "mine.txt"):
            try:
                open(path, "w").write("x")
                print("wrote", path)
            except OSError as exc:
                print("refused", path, exc.errno)
    """
    outcome = run("bwrap", folder, code)
    assert not target.exists() and not home.exists()
    assert (folder / "mine.txt").read_text() == "x"
    assert outcome.output.count("refused") == 3, outcome.output


def test_a_detached_process_does_not_survive_the_run(kind: str, folder: Path) -> None:
    marker = f"{os.getpid()}4242"
    code = f"""
        import subprocess
        subprocess.Popen(["sleep", "{marker}"], start_new_session=True)
        subprocess.Popen(["sh", "-c", "trap '' HUP TERM; exec sleep {marker}"])
        print("started")
    """
    outcome = run(kind, folder, code)
    assert outcome.status == 0 and "started" in outcome.output
    assert alive(marker) == []


def test_a_fork_bomb_is_stopped_and_leaves_nothing(kind: str, folder: Path) -> None:
    marker = f"bomb{os.getpid()}"
    code = f"""
        import os, time
        os.environ["MARK"] = "{marker}"
        for _ in range(400):
            try:
                if os.fork() == 0:
                    os.execvp("sleep", ["sleep", "{marker[4:]}7"])
            except OSError:
                pass
        time.sleep(30)
    """
    outcome = run(kind, folder, code, processes=32, seconds=20)
    assert outcome.exceeded == "processes" and outcome.status is None
    assert alive(f"{marker[4:]}7") == []


def test_memory_is_limited_for_the_whole_tree(kind: str, folder: Path) -> None:
    code = """
        import os, time
        for _ in range(4):
            if os.fork() == 0:
                block = bytearray(200 * 1024 * 1024)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(20)
                os._exit(0)
        time.sleep(20)
    """
    outcome = run(kind, folder, code, memory=400 * 1024 * 1024, seconds=15)
    assert outcome.exceeded == "memory", outcome


def test_processor_time_is_limited(kind: str, folder: Path) -> None:
    outcome = run(kind, folder, "while True:\n    pass\n", cpu_seconds=1, seconds=20)
    assert outcome.exceeded == "cpu" and outcome.seconds < 10


def test_wall_time_is_limited(kind: str, folder: Path) -> None:
    outcome = run(kind, folder, "import time\ntime.sleep(60)\n", seconds=1)
    assert outcome.exceeded == "time" and outcome.seconds < 5


def test_a_run_in_a_control_group_says_the_most_it_held(kind: str, folder: Path) -> None:
    if not Group.works():
        pytest.skip("no control group can be made here, so no peak is known")
    code = """
        import threading, time
        threads = [threading.Thread(target=time.sleep, args=(1,)) for _ in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        block = bytearray(100 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
    """
    outcome = run(kind, folder, code)
    assert outcome.status == 0 and outcome.peak is not None, outcome
    # pids.peak came with Linux 6.1; before it the kernel does not say.
    assert outcome.peak.processes is None or outcome.peak.processes > 40
    assert outcome.peak.memory >= 100 * 1024**2 and outcome.peak.cpu_seconds > 0


def test_output_is_capped(kind: str, folder: Path) -> None:
    outcome = run(kind, folder, "import sys\nsys.stdout.write('x' * 5_000_000)\n")
    assert outcome.status == 0 and len(outcome.output) < 1_100_000
    assert "more bytes of output dropped" in outcome.output


def test_no_network_in_bwrap(folder: Path) -> None:
    try:
        get_sandbox("bwrap")
    except SandboxError as exc:
        pytest.skip(str(exc))
    code = """
        import socket
        try:
            socket.create_connection(("10.255.255.1", 80), timeout=2)
        except OSError as exc:
            print("no network:", exc.errno)
    """
    assert "no network" in run("bwrap", folder, code).output


def test_auto_never_means_none_and_unknown_kinds_are_refused() -> None:
    assert get_sandbox("auto").kind in ("bwrap", "rlimit")
    with pytest.raises(SandboxError, match="choose one of auto, bwrap, rlimit, none"):
        get_sandbox("docker")


def test_secrets_are_found_by_name_and_redacted() -> None:
    environ = {"OPENAI_API_KEY": CANARY, "GH_TOKEN": "ghp_123456789", "HOME": "/home/someone"}
    secrets = secret_values(environ, extra=["short"])
    assert set(secrets) == {CANARY, "ghp_123456789"}
    text = f"key={CANARY} token=ghp_123456789 home=/home/someone"
    assert redact(text, secrets) == "key=[redacted] token=[redacted] home=/home/someone"
