"""The sandbox of choice on Linux: bubblewrap (`bwrap`) gives the run new user, PID, IPC, UTS,
network and cgroup namespaces (and no more user namespaces of its own, where bwrap can forbid
them), a root file system of read-only system folders plus the one writable folder, no
capabilities, a filter of system calls (sandbox/seccomp.py), and death with its parent. Its
arguments, which name host folders, reach it through a descriptor, not its command line (which
the run could read in /proc/1/cmdline)."""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox import disk, seccomp, tree
from sandbox.base import Limits, Outcome, SandboxError
from sandbox.cgroups import Group
from sandbox.launch import Launch
from sandbox.redaction import host_places, unhosted

INSIDE = "/sandbox"
"""Where the run's folder appears inside the sandbox, and its working directory."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Folders bound read-only (missing ones skipped); on merged-/usr systems most are symlinks."""
ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/mime.types",
)
"""The few files of /etc programs need: never all of /etc, which holds secrets of its own."""
TMPFS = {"/tmp": 512 * 1024**2, "/dev/shm": 64 * 1024**2}
"""The run's own /tmp and /dev/shm, each a tmpfs of at most these bytes (and of the run's limit
on disk): what a run writes there is gone with it, and it cannot fill the host's. They are
memory, which a control group charges to the run; without one the watch asks their usage."""


class Bubblewrap:
    """Each run in a fresh bubblewrap sandbox; with a control group where one can be made."""

    kind = "bwrap"

    def __init__(self, program: str, forbids_userns: bool = True):
        self.program = program
        self.forbids_userns = forbids_userns
        """Whether bwrap forbids the run user namespaces of its own (--disable-userns)."""
        self.cgroups = Group.works()
        self.filtered = seccomp.supported()
        """Whether the run gets the system call filter (one is made for this architecture)."""
        self.description = (
            "bubblewrap: new user, PID, network and IPC namespaces, read-only system folders,"
            " only the run's own folder writable"
            + ("" if forbids_userns else " (this bwrap cannot forbid nested user namespaces)")
            + (
                "; no ptrace, namespaces, mounts or file watches (seccomp)"
                if self.filtered
                else "; NO system call filter on this architecture"
            )
            + "; limits on the whole process tree"
            + (" (cgroups)" if self.cgroups else " (watched every 50 ms)")
        )

    @classmethod
    def find(cls) -> Bubblewrap:
        """The sandbox, once bwrap is shown to work here; SandboxError with the reason if not."""
        program = shutil.which("bwrap")
        if program is None:
            raise SandboxError("bubblewrap is not installed (apt-get install bubblewrap)")
        probe = [program, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
        # A bounded /tmp needs --size (bubblewrap 0.5.0 or newer).
        probe += ["--perms", "1777", "--size", "1048576", "--tmpfs", "/tmp", "true"]
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxError(f"bubblewrap cannot run here: {exc}") from None
        if done.returncode != 0:
            reason = done.stderr.strip() or f"exit status {done.returncode}"
            raise SandboxError(f"bubblewrap cannot make namespaces here: {reason}")
        # bwrap 0.8 and later, not setuid: the run may make no user namespace of its own.
        nested = [program, *NO_USERNS, *probe[1:]]
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            done = subprocess.run(nested, capture_output=True, timeout=30)
            return cls(program, forbids_userns=done.returncode == 0)
        return cls(program, forbids_userns=False)

    def run(
        self,
        command: Sequence[str],
        folder: Path,
        limits: Limits,
        env: Mapping[str, str],
        cancel: threading.Event | None = None,
        ready: bool = False,
        shared: Sequence[Path] = (),
    ) -> Outcome:
        """Run command in the sandbox with folder bound writable at /sandbox."""
        with (
            Launch(ready, {"tasks": limits.processes} if _tasks_counted() else None) as launch,
            contextlib.ExitStack() as fds,
        ):
            argv = self.argv(command, folder, limits, env, launch, shared)
            binds = needed(command, env, (folder,), shared)
            rules = fds.enter_context(_memfd(seccomp.program())) if self.filtered else None
            if rules is not None:
                argv[1:1] = ["--seccomp", str(rules)]
            # Its options name host folders: bwrap reads them from a descriptor (the command
            # must stay on its command line).
            end = argv.index("--")
            options = b"".join(a.encode() + b"\0" for a in argv[1:end])
            words = fds.enter_context(_memfd(options))
            inside = launch.env(env) | {"HOME": INSIDE, "TMPDIR": "/tmp"}
            if "PATH" in env:
                inside["PATH"] = run_path(binds, env)
            watch = disk.Watch([folder], limits, _Mounts(limits))
            outcome = tree.run(
                [self.program, "--args", str(words), *argv[end:]],
                cwd=folder,
                env=inside,
                limits=limits,
                cgroups=self.cgroups,
                kill=_kill,
                cancel=cancel,
                pass_fds=(*launch.fds, words, *([rules] if rules is not None else [])),
                started=launch.handed_over,
                watch=watch.exceeded,
            )
            return unhosted(launch.judged(outcome), host_places(folder, INSIDE))

    def argv(
        self,
        command: Sequence[str],
        folder: Path,
        limits: Limits,
        env: Mapping[str, str],
        launch: Launch | None = None,
        shared: Sequence[Path] = (),
    ) -> list[str]:
        """The bwrap command line: namespaces, the read-only binds, the writable folder, /tmp
        and /dev/shm of bounded size, then the command (through the launcher, when there is
        one)."""
        argv = [self.program, "--unshare-all", "--die-with-parent", "--new-session"]
        argv += NO_USERNS if self.forbids_userns else []
        argv += ["--cap-drop", "ALL", "--hostname", "sandbox"]
        for path in SYSTEM + ETC:
            argv += ["--ro-bind-try", path, path]
        argv += ["--proc", "/proc", "--dev", "/dev"]
        for target, size in tmpfs_sizes(limits).items():
            argv += ["--perms", "1777", "--size", str(size), "--tmpfs", target]
        argv += ["--remount-ro", "/dev"]  # its own /dev/shm stays writable
        argv += ["--bind", str(folder), INSIDE]
        # After the mounts above, so that none of them hides what the run needs (a
        # virtualenv under /tmp, say).
        private = (folder,)
        for source, target in needed(command, env, private, shared):
            argv += ["--ro-bind", source, target]
            argv += [a for under in _covered(source, target, private) for a in ("--tmpfs", under)]
        argv += ["--chdir", INSIDE, "--remount-ro", "/"]
        return [*argv, "--", *(launch.argv(command, "exec") if launch else command)]


def tmpfs_sizes(limits: Limits) -> dict[str, int]:
    """Where the run gets a tmpfs of its own, and its size in bytes (whole pages)."""
    page = os.sysconf("SC_PAGE_SIZE")
    return {
        target: max(page, min(size, limits.disk) // page * page) for target, size in TMPFS.items()
    }


class _Mounts:
    """What the run's own /tmp and /dev/shm hold, seen from the host through its first
    process inside the sandbox (bwrap's init, which the run cannot change)."""

    def __init__(self, limits: Limits):
        self.sizes = tmpfs_sizes(limits)
        self.init: int | None = None

    def __call__(self, pid: int) -> list[disk.Written]:
        if self.init is None:
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as f:
                    children = f.read().split()
            except OSError:
                return []
            if not children:
                return []
            self.init = int(children[0])
        found = [disk.mounted(f"/proc/{self.init}/root{t}", s) for t, s in self.sizes.items()]
        return [written for written in found if written is not None]


NO_USERNS = ["--unshare-user", "--disable-userns", "--assert-userns-disabled"]
"""No user namespace inside the run's own (bwrap 0.8 and later)."""


@contextlib.contextmanager
def _memfd(data: bytes):
    """A descriptor of an unnamed file holding data, read from its start, closed after."""
    fd = os.memfd_create("coder-bwrap", 0)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd
    finally:
        os.close(fd)


MOUNTS = ("/proc", "/dev", "/tmp", INSIDE)
"""Where the sandbox mounts folders of its own: a bind there or above would hide them."""


def needed(
    command: Sequence[str],
    env: Mapping[str, str],
    private: Sequence[Path] = (),
    shared: Sequence[Path] = (),
) -> list[tuple[str, str]]:
    """(host folder, where the run sees it) for the folders outside the system ones that the
    command needs to read: the Python installation running coder, its standard library and
    site-packages (the tests and the launcher run with it), the virtualenv the environment
    names, the command's own folder, the folders of the run's PATH that hold a program the
    command names (never one in a home folder, or one of the user's own: a script there may
    hold a key), and the shared folders asked for (a toolchain, a prepared cache, wherever they
    lie). Each is bound where it really is and where the run names it (a path through a
    symlink), once: not under a folder bound already, nor under the system
    folders, which show it already. Never a folder inside a private one (the run's own, or its
    /tmp), or one holding a mount point of the sandbox, which would hide it; a folder holding
    a private one is bound with the way to it hidden (see _covered)."""
    wanted = [sys.prefix, sys.base_prefix, os.path.dirname(sys.executable)]
    wanted.append(os.path.dirname(os.path.realpath(sys.executable)))
    # Its standard library and site-packages, which may lie elsewhere (a symlink, a distro's).
    paths = sysconfig.get_paths()
    wanted += [paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")]
    if command and os.path.isabs(command[0]):
        wanted.append(os.path.dirname(command[0]))
    wanted += _virtualenv(env)
    wanted += _programs(command, env)
    wanted += [str(p) for p in shared]
    hidden = [os.path.realpath(p) for p in private]
    pairs = set()
    for path in wanted:
        real = os.path.realpath(path)
        if os.path.isdir(real) and not any(_within(real, h) for h in hidden):
            pairs |= {(real, real), (real, os.path.normpath(path))}
    binds: dict[str, str] = {}
    for source, target in sorted(pairs, key=lambda pair: (pair[1].count("/"), pair[1])):
        # A path under the system folders is there already, symlinks and all; one under a
        # folder bound before is seen through that bind, as it is here (binding it again
        # would fail where the path goes through a symlink).
        shown = any(_within(target, t) for t in (*SYSTEM, *ETC, *binds))
        if not shown and not any(_within(m, target) for m in ("/", *MOUNTS)):
            binds[target] = source
    return [(source, target) for target, source in binds.items()]


def run_path(binds: Sequence[tuple[str, str]], env: Mapping[str, str]) -> str:
    """The run's PATH: the folders of env's that the run sees (the system's, the bound ones
    and those under them, its own, relative ones), in their order; the others are not there
    (one under /tmp would be the run's own /tmp)."""
    seen = (*SYSTEM, *(target for _, target in binds), INSIDE)
    folders = env.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(
        f for f in folders if f and (not os.path.isabs(f) or any(_within(f, s) for s in seen))
    )


SHELLS = ("sh", "bash", "dash", "zsh", "ksh")
"""Shells whose `-c` script is read for the programs it names."""


def _programs(command: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The folders of env's PATH, outside the system folders, that hold a program the command
    names (its first word, or any word of a shell's -c script) and that are the system's, not
    the user's: none in a home folder, or owned by this user (unless that is root)."""
    words = list(command[:1])
    if len(command) >= 3 and os.path.basename(command[0]) in SHELLS and command[1] == "-c":
        words += _shell_words(command[2])
    names = {w for w in words if w and "/" not in w and "=" not in w}
    found = []
    for folder in env.get("PATH", "").split(os.pathsep):
        if not os.path.isabs(folder) or any(_within(folder, s) for s in SYSTEM):
            continue
        if _users_own(folder):
            continue
        if any(os.access(os.path.join(folder, n), os.X_OK) for n in names):
            found.append(folder)
    return found


def _shell_words(script: str) -> list[str]:
    lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: the shell will refuse it anyway
        return script.split()


def _users_own(folder: str) -> bool:
    """Whether folder lies in a home folder, or belongs to this user when it is not root."""
    real = os.path.realpath(folder)
    homes = {os.path.expanduser("~")}
    with contextlib.suppress(KeyError):
        homes.add(pwd.getpwuid(os.geteuid()).pw_dir)
    homes = {os.path.realpath(h) for h in homes if h and h != "/"}
    if any(_within(real, h) for h in homes):
        return True
    try:
        return os.geteuid() != 0 and os.stat(real).st_uid == os.geteuid()
    except OSError:
        return True


def _virtualenv(env: Mapping[str, str]) -> list[str]:
    """The virtualenv env names, when it is one, and the interpreter it was made from: the
    interpreter the command needs, wherever it lies."""
    venv = env.get("VIRTUAL_ENV", "")
    config = os.path.join(venv, "pyvenv.cfg")
    if not os.path.isabs(venv) or not os.path.isfile(config):
        return []
    found = [venv]
    with contextlib.suppress(OSError, UnicodeDecodeError):
        for line in Path(config).read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and os.path.isabs(value.strip()):
                # home names the base interpreter's bin folder; its installation is above.
                found.append(os.path.dirname(os.path.realpath(value.strip())))
    return found


def _covered(source: str, target: str, private: Sequence[Path]) -> list[str]:
    """Where, under a folder bound at target, an empty folder must hide the way to one of the
    run's private folders inside source (a TMPDIR inside the virtualenv, say), so that neither
    it nor its siblings (other runs' folders) show."""
    covered = []
    for folder in private:
        real = os.path.realpath(folder)
        if _within(real, source) and real != source:
            first = os.path.relpath(real, source).split(os.sep)[0]
            covered.append(os.path.join(target, first))
    return sorted(set(covered))


def _within(path: str, folder: str) -> bool:
    """Whether path is folder or lies under it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@functools.cache
def _tasks_counted() -> bool:
    """Whether the kernel counts a user namespace's processes and threads apart from the rest
    of the user's (Linux 5.14 on), so that the limit on tasks set inside the sandbox is the
    run's alone; before, it would count every process of the user on the machine."""
    numbers = re.match(r"(\d+)\.(\d+)", platform.release())
    if not sys.platform.startswith("linux") or numbers is None:
        return False
    return (int(numbers[1]), int(numbers[2])) >= (5, 14)


def _kill(proc: subprocess.Popen) -> None:
    # bwrap's own process and its init inside are the session's first two; when the init dies
    # (--die-with-parent) the kernel kills every process of the PID namespace.
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
