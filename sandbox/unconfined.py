"""`--sandbox none`, only when asked for by name: the command runs as a plain subprocess with
the scrubbed environment and the limits, the whole tree watched and killed at the end, but
nothing else contained."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from sandbox import disk, scratch, tree
from sandbox.base import Limits, Outcome
from sandbox.launch import Launch
from sandbox.redaction import host_places, unhosted


class Unconfined:
    """No containment beyond limits and a scrubbed environment."""

    kind = "none"
    description = (
        "NONE (asked for with --sandbox none): the run can read and write everything you can,"
        " and read this process's memory"
    )

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
        """Run command in folder."""
        with Launch(ready) as launch, scratch.folder("coder-sandbox-tmp-") as tmp:
            # The run's TMPDIR is watched with its folder; the host's /tmp, /dev/shm and what
            # else the user may write are not (the run is not kept from them).
            watch = disk.Watch([folder, tmp], limits)
            outcome = tree.run(
                launch.argv(command, "exec"),
                cwd=folder,
                env=launch.env(env) | {"HOME": str(folder), "TMPDIR": str(tmp)},
                limits=limits,
                cgroups=False,
                kill=tree.kill_tree,
                cancel=cancel,
                pass_fds=launch.fds,
                started=launch.handed_over,
                watch=watch.exceeded,
            )
            return unhosted(launch.judged(outcome), host_places(folder, "."))
