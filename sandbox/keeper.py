"""The keeper of a run without namespaces (run as a script, importing nothing of the project):
it adopts every orphan of the command it starts, gives up privileges the run must not have, and
when the command ends kills whatever it left behind, then exits with its status."""

import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys

PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38


def main(command: list[str]) -> int:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if sys.platform.startswith("linux"):
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if os.geteuid() == 0:
            _drop_capabilities(libc)
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        print(f"cannot run {command[0]}: {exc}", file=sys.stderr)
        return 127
    status = child.wait()
    _kill_the_rest()
    return 128 - status if status < 0 else status


def _drop_capabilities(libc) -> None:
    """Root without any capability: it can no longer read other processes' memory or
    environment, signal other users' processes, or ignore file permissions."""
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

    header, data = Header(0x20080522, 0), (Data * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise SystemExit("the keeper cannot drop root's capabilities")


def _kill_the_rest() -> None:
    """SIGKILL and reap every process left (all are this one's children now), until none is."""
    me = os.getpid()
    while os.path.isdir("/proc"):
        left = _children(me)
        if not left:
            return
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break


def _children(parent: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read().decode(errors="replace")
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            if fields and fields[0] != "Z" and int(fields[1]) == parent:
                found.append(int(name))
    return found


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
