"""The system calls a contained run may not make, as a classic BPF program for bubblewrap's
--seccomp: debugging or reading other processes (ptrace, process_vm_*), new namespaces
(unshare, setns, clone with a namespace flag; clone3, whose flags a filter cannot read, says it
does not exist so that the C library falls back to clone), mounts, the kernel's keyrings, BPF,
performance counters, userfaultfd, and watching files (inotify, fanotify: a read-only folder of
the host shows who else uses it). Each fails with EPERM; a call of another architecture (a
32-bit program, x32) ends the process. Built by hand: a few dozen instructions, no library."""

from __future__ import annotations

import errno
import platform
import struct

DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "kcmp",
    "open_by_handle_at",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
)
"""Denied whatever their arguments."""

X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "setns": 308,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "kcmp": 312, "open_by_handle_at": 304,
    "inotify_init": 253, "inotify_init1": 294, "inotify_add_watch": 254,
    "fanotify_init": 300, "fanotify_mark": 301, "unshare": 272, "clone": 56, "clone3": 435,
}  # fmt: skip
AARCH64 = {
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "setns": 268,
    "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
    "perf_event_open": 241, "userfaultfd": 282, "kcmp": 272, "open_by_handle_at": 265,
    "inotify_init1": 26, "inotify_add_watch": 27, "fanotify_init": 262, "fanotify_mark": 263,
    "unshare": 97, "clone": 220, "clone3": 435,
}  # fmt: skip
ARCHITECTURES = {
    # machine: (AUDIT_ARCH_* as seccomp_data.arch gives it, system call numbers)
    "x86_64": (0xC000003E, X86_64),
    "aarch64": (0xC00000B7, AARCH64),
}
X32_BIT = 0x40000000
"""Set in the number of an x32 call on x86_64 (same architecture field, other numbers)."""

CLONE_NAMESPACES = 0x7E020000
"""CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID and NEWNET."""
UNSHARE_NAMESPACES = CLONE_NAMESPACES | 0x80
"""The same and CLONE_NEWTIME (whose bit is part of clone's exit signal, so not for clone)."""

# Classic BPF, as linux/filter.h and linux/seccomp.h define it.
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
ALLOW, KILL_PROCESS, ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
NR, ARCH, ARG0 = 0, 4, 16
"""Offsets in struct seccomp_data (the low half of the first argument: little-endian)."""


def supported() -> bool:
    """Whether a filter is made for this machine's architecture."""
    return platform.machine() in ARCHITECTURES


def program() -> bytes:
    """The filter for this machine (struct sock_filter[]); ValueError where it has none."""
    try:
        arch, numbers = ARCHITECTURES[platform.machine()]
    except KeyError:
        raise ValueError(f"no system call filter for {platform.machine()}") from None
    eperm, enosys = ERRNO | errno.EPERM, ERRNO | errno.ENOSYS
    denied = [numbers[name] for name in DENIED if name in numbers]
    # Jumps are relative and forward only; the returns at the end are reached from above.
    tail = [
        (RET_K, 0, 0, ALLOW),
        (RET_K, 0, 0, eperm),
        (RET_K, 0, 0, enosys),
        (RET_K, 0, 0, KILL_PROCESS),
        (LD_W_ABS, 0, 0, ARG0),  # clone: its flags
        (JSET_K, 0, 4, CLONE_NAMESPACES),  # none set: allow
        (RET_K, 0, 0, eperm),
        (LD_W_ABS, 0, 0, ARG0),  # unshare: its flags
        (JSET_K, 0, 1, UNSHARE_NAMESPACES),
        (RET_K, 0, 0, eperm),
        (RET_K, 0, 0, ALLOW),
    ]
    deny, absent, kill, clone, unshare = 1, 2, 3, 4, 7
    head = [
        (LD_W_ABS, 0, 0, ARCH),
        (JEQ_K, 1, 0, arch),
        None,  # another architecture: kill
        (LD_W_ABS, 0, 0, NR),
        None,  # x32: kill
        *[None] * len(denied),
        None,  # clone3
        None,  # clone
        None,  # unshare
        (RET_K, 0, 0, ALLOW),
    ]
    end = len(head)

    def jump(at: int, target: int) -> int:
        return end + target - at - 1

    head[2] = (RET_K, 0, 0, KILL_PROCESS)
    x32 = numbers is X86_64
    head[4] = (JGE_K, jump(4, kill), 0, X32_BIT) if x32 else (JEQ_K, 0, 0, 0)  # else: no-op
    for n, number in enumerate(denied):
        head[5 + n] = (JEQ_K, jump(5 + n, deny), 0, number)
    at = 5 + len(denied)
    head[at] = (JEQ_K, jump(at, absent), 0, numbers["clone3"])
    head[at + 1] = (JEQ_K, jump(at + 1, clone), 0, numbers["clone"])
    head[at + 2] = (JEQ_K, jump(at + 2, unshare), 0, numbers["unshare"])
    return b"".join(struct.pack("=HBBI", *op) for op in head + tail)
