"""The launcher of every contained run (run by this interpreter inside the sandbox, as a script
given with -c, importing nothing of the project): it tells the parent, through a pipe, that the
sandbox started and whether the command could be executed; as the keeper of a run without
namespaces it also adopts every orphan of the command, gives up privileges the run must not
have (as root: runs the command as a user of the run's own), ends the run when the harness
dies, and when the command ends kills whatever it left behind, then exits with its status.

Usage: keeper.py STATUS_FD exec|keep ready|- SETTINGS COMMAND...
On STATUS_FD it writes S once it runs, then E and the reason if COMMAND cannot be executed.
With exec, a COMMAND that is this interpreter with the launcher's flags running a script given
with -c runs that script in the launcher's own process instead of a new one.
With ready, COMMAND inherits STATUS_FD (named by $SANDBOX_READY_FD) to write R on once its own
start-up is done, before it runs anything untrusted; otherwise COMMAND never holds it.
SETTINGS is a JSON object: "tasks", the most processes and threads the command's user may have
at once (RLIMIT_NPROC, given only where the kernel counts the run's own alone); for keep,
"parent", the harness's pid, whose death ends the run, and "uid", the unprivileged user (and
group) the command runs as when the keeper is root, every process of which is killed at the end."""

import contextlib
import json
import os
import resource
import sys

# What only the keeper needs (ctypes, signal, subprocess) is imported where it is used: the
# launcher that becomes the command starts in half the time without them.

LAUNCHER_FLAGS = ["-I", "-S", "-B"]
"""The flags the launcher runs with (sandbox.launch), which a script it runs in its own
process shares."""
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38


def main(argv: list[str]) -> int:
    status, mode, ready = int(argv[0]), argv[1], argv[2] == "ready"
    settings, command = json.loads(argv[3]), argv[4:]
    os.write(status, b"S")
    os.set_inheritable(status, ready)
    if settings.get("tasks"):
        tasks = settings["tasks"]
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))
    if mode == "exec":
        if command[:5] == [sys.executable, *LAUNCHER_FLAGS, "-c"] and len(command) > 5:
            if not ready:
                os.close(status)  # as exec would have: the script never holds the report
            return _script(command[5], command[6:])
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            return _cannot_run(status, command, exc)
    return keep(status, ready, settings, command)


def _script(source: str, args: list[str]) -> int:
    """Run a script given with -c to this interpreter with the launcher's own flags here, as
    exec would have started it, sparing a second interpreter's start (the test driver)."""
    sys.argv = ["-c", *args]
    exec(compile(source, "<string>", "exec"), {"__name__": "__main__"})
    return 0


def keep(status: int, ready: bool, settings: dict, command: list[str]) -> int:
    """Run command as the keeper: its parent, ending the run when the harness dies and
    killing whatever it left when it ends; its exit status."""
    import ctypes.util
    import subprocess

    uid = settings.get("uid")
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if sys.platform.startswith("linux"):
        _die_with(libc, settings.get("parent"), uid)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if os.geteuid() == 0 and uid is None and not _drop_capabilities(libc):
            os.write(status, b"Ethe keeper cannot drop root's capabilities")
            return 127
    # As root, the command runs as the run's own user, and the keeper stays root: the command
    # can neither signal it nor write a file root owns (the control groups' among them).
    user = {} if uid is None else {"user": uid, "group": uid, "extra_groups": []}
    try:
        child = subprocess.Popen(command, pass_fds=(status,) if ready else (), **user)
    except OSError as exc:
        return _cannot_run(status, command, exc)
    os.close(status)
    code = child.wait()
    _end(uid)
    return 128 - code if code < 0 else code


def _die_with(libc, parent: int | None, uid: int | None) -> None:
    """End the run when the harness dies: the keeper gets SIGTERM then, kills everything and
    exits (and so does it if the harness died before this was set)."""
    import signal

    def ended(*_) -> None:
        _end(uid)
        os._exit(128 + signal.SIGTERM)

    signal.signal(signal.SIGTERM, ended)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        ended()


def _end(uid: int | None) -> None:
    """Kill everything the command left: every process of its user, and every descendant."""
    if uid is not None:
        _kill_user(uid)
    _kill_the_rest()


def _cannot_run(status: int, command: list[str], exc: OSError) -> int:
    reason = f"cannot execute {command[0]}: {exc.strerror or exc}"
    os.write(status, b"E" + reason.encode(errors="replace")[:2000])
    return 127


def _drop_capabilities(libc) -> bool:
    """Root without any capability: it can no longer read other processes' memory or
    environment, signal other users' processes, or ignore file permissions. Whether it worked."""
    import ctypes

    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

    header, data = Header(0x20080522, 0), (Data * 2)()
    return libc.capset(ctypes.byref(header), data) == 0


def _kill_user(uid: int) -> None:
    """SIGKILL every process of the run's user: a helper that becomes that user signals all it
    may (kill -1), which is exactly those, wherever they moved, a few times over so that one
    forking meanwhile is caught too (the limit on its tasks bounds how many there are); the
    killed are reaped by _kill_the_rest, as they are the keeper's children by then."""
    import signal

    helper = os.fork()
    if helper == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            for _ in range(20):
                os.kill(-1, signal.SIGKILL)
        except BaseException:
            pass
        os._exit(0)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(helper, 0)


def _kill_the_rest() -> None:
    """SIGKILL and reap every process left (all are this one's children now), until none is."""
    import signal

    me = os.getpid()
    while os.path.isdir("/proc"):
        left = _children(me)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _reap()
        if not left:
            return


def _reap() -> None:
    """Wait for every child that has ended (none is left to the machine's init as a zombie)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


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
