"""A control group for one run, where this process may make one (cgroup v2 with the memory and
pids controllers delegated, or cgroup v1 as root): hard limits on the memory and the number of
processes of the whole tree, its processor time, and a way to kill every process in it."""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from pathlib import Path

from sandbox.base import Limits, Peak

ROOT = Path("/sys/fs/cgroup")


class Group:
    """One run's control group: a folder per hierarchy (one in v2; memory, pids and, when
    there, cpuacct in v1)."""

    def __init__(self, folders: dict[str, Path], version: int):
        self.folders = folders
        self.version = version

    @classmethod
    def create(cls, limits: Limits) -> Group | None:
        """A new group under this process's own, with limits set; None where it cannot be made."""
        name = f"coder-sandbox-{uuid.uuid4().hex[:12]}"
        try:
            if (ROOT / "cgroup.controllers").is_file():
                return _create_v2(name, limits)
            return _create_v1(name, limits)
        except OSError:
            return None

    @classmethod
    def works(cls) -> bool:
        """Whether a group can be made here (one is made and removed)."""
        group = cls.create(Limits())
        if group is None:
            return False
        group.remove()
        return True

    def join_files(self) -> list[str]:
        """The files a new process writes its pid to, to enter the group."""
        return [str(folder / "cgroup.procs") for folder in self.folders.values()]

    def cpu_seconds(self) -> float | None:
        """Processor time used by the group's processes, dead ones included."""
        try:
            if self.version == 2:
                for line in _read(self.folders["all"] / "cpu.stat").splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
                return None
            if "cpuacct" in self.folders:
                return int(_read(self.folders["cpuacct"] / "cpuacct.usage")) / 1e9
        except (OSError, ValueError):
            pass
        return None

    def peak(self) -> Peak:
        """The most processes and memory the group has held at once, and its processor time."""
        memory = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        return Peak(
            _number(self._folder("pids") / "pids.peak"),
            _number(self._folder("memory") / memory),
            self.cpu_seconds(),
        )

    def exceeded(self) -> str | None:
        """ "memory" or "processes" when the kernel has refused the group more of either."""
        memory, pids = self._folder("memory"), self._folder("pids")
        if self.version == 2:
            if _counter(memory / "memory.events", "oom_kill"):
                return "memory"
        elif _counter(memory / "memory.oom_control", "oom_kill"):
            return "memory"
        if _counter(pids / "pids.events", "max"):
            return "processes"
        return None

    def pids(self) -> list[int]:
        """The processes in the group now."""
        try:
            text = _read(self._folder("pids") / "cgroup.procs")
        except OSError:
            return []
        return [int(p) for p in text.split()]

    def kill(self) -> None:
        """SIGKILL every process in the group, new ones included, until it is empty."""
        if self.version == 2:
            with contextlib.suppress(OSError):
                (self.folders["all"] / "cgroup.kill").write_text("1")
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Delete the group's folders (once its processes are gone)."""
        for folder in self.folders.values():
            with contextlib.suppress(OSError):
                folder.rmdir()

    def _folder(self, controller: str) -> Path:
        return self.folders["all" if self.version == 2 else controller]


def _create_v2(name: str, limits: Limits) -> Group | None:
    own = _own_paths().get("")
    if own is None:
        return None
    parent = ROOT / own.lstrip("/")
    folder = parent / name
    folder.mkdir()
    group = Group({"all": folder}, 2)
    controllers = _read(folder / "cgroup.controllers").split()
    if "memory" not in controllers or "pids" not in controllers:
        group.remove()
        return None
    try:
        (folder / "memory.max").write_text(str(limits.memory))
        with contextlib.suppress(OSError):
            (folder / "memory.swap.max").write_text("0")
        (folder / "pids.max").write_text(str(limits.processes))
    except OSError:
        group.remove()
        raise
    return group


def _create_v1(name: str, limits: Limits) -> Group | None:
    own = _own_paths()
    folders: dict[str, Path] = {}
    for controller in ("memory", "pids", "cpuacct"):
        mount = ROOT / controller
        if controller not in own or not (mount / "cgroup.procs").is_file():
            continue
        folder = mount / own[controller].lstrip("/") / name
        try:
            folder.mkdir()
        except OSError:
            continue
        folders[controller] = folder
    group = Group(folders, 1)
    if "memory" not in folders or "pids" not in folders:
        group.remove()
        return None
    try:
        (folders["memory"] / "memory.limit_in_bytes").write_text(str(limits.memory))
        with contextlib.suppress(OSError):  # only where swap is accounted
            (folders["memory"] / "memory.memsw.limit_in_bytes").write_text(str(limits.memory))
        (folders["pids"] / "pids.max").write_text(str(limits.processes))
    except OSError:
        group.remove()
        raise
    return group


def _own_paths() -> dict[str, str]:
    """This process's group in each hierarchy: controller -> path ("" for v2's one)."""
    paths = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _read(path: Path) -> str:
    return path.read_text()


def _number(path: Path) -> int | None:
    try:
        return int(_read(path))
    except (OSError, ValueError):
        return None


def _counter(path: Path, name: str) -> int:
    try:
        for line in _read(path).splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0
