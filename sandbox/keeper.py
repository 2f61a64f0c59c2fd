"""The launcher of every contained run (run by this interpreter inside the sandbox, as a script
given with -c, importing nothing of the project): it tells the parent, through a pipe, that the
sandbox started and whether the command could be executed; as the keeper of a run without
namespaces it also adopts every orphan of the command, gives up privileges the run must not
have, and when the command ends kills whatever it left behind, then exits with its status.

Usage: keeper.py STATUS_FD exec|keep ready|- COMMAND...
On STATUS_FD it writes S once it runs, then E and the reason if COMMAND cannot be executed.
With ready, COMMAND inherits STATUS_FD (named by $SANDBOX_READY_FD) to write R on once its own
start-up is done, before it runs anything untrusted; otherwise COMMAND never holds it."""

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


def main(argv: list[str]) -> int:
    status, mode, ready, command = int(argv[0]), argv[1], argv[2] == "ready", argv[3:]
    os.write(status, b"S")
    os.set_inheritable(status, ready)
    if mode == "exec":
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            return _cannot_run(status, command, exc)
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if sys.platform.startswith("linux"):
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if os.geteuid() == 0 and not _drop_capabilities(libc):
            os.write(status, b"Ethe keeper cannot drop root's capabilities")
            return 127
    try:
        child = subprocess.Popen(command, pass_fds=(status,) if ready else ())
    except OSError as exc:
        return _cannot_run(status, command, exc)
    os.close(status)
    code = child.wait()
    _kill_the_rest()
    return 128 - code if code < 0 else code


def _cannot_run(status: int, command: list[str], exc: OSError) -> int:
    reason = f"cannot execute {command[0]}: {exc.strerror or exc}"
    os.write(status, b"E" + reason.encode(errors="replace")[:2000])
    return 127


def _drop_capabilities(libc) -> bool:
    """Root without any capability: it can no longer read other processes' memory or
    environment, signal other users' processes, or ignore file permissions. Whether it worked."""
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

    header, data = Header(0x20080522, 0), (Data * 2)()
    return libc.capset(ctypes.byref(header), data) == 0


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
