"""What a hostile run can still write, and what its report costs the harness: for each sandbox
here and each writable place, the bytes and files a run writing as fast as it can left before
it was stopped (or the place was full), and how long it took to stop it, with the default
limits; then the harness's peak memory and time reading a 40 MB report of entities just under
expat's guard and a 250 MB report of plain elements, before (the standard library's parser, as
the harness read reports until now) and after (sandbox.readback); then a tree 3,000 deep
removed. Run: python tests/perf/hostile_writes.py"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sandbox import Limits, SandboxError, get_sandbox, scratch

FLOOD = """
import os, sys, tempfile, time
where = sys.argv[1].replace("TMPDIR", tempfile.gettempdir())
size, written, files = int(sys.argv[2]), 0, 0
block = b"x" * min(size, 1 << 20)
try:
    while True:
        with open(os.path.join(where, f"f{files}"), "wb") as f:
            files += 1
            for _ in range(max(1, size // len(block)) if size else 0):
                written += f.write(block)
except OSError as exc:
    print("full:", exc, flush=True)
    time.sleep(3600)
"""
READ = """
import resource, sys, time
from pathlib import Path
path = Path(sys.argv[2])
began = time.monotonic()
try:
    if sys.argv[1] == "before":
        import xml.etree.ElementTree as ET
        ET.parse(path)
        said = "parsed"
    else:
        from sandbox import readback
        readback.junit_cases(path.parent, path.name)
        said = "parsed"
except Exception as exc:
    said = f"{type(exc).__name__}: {str(exc)[:70]}"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{peak:8.0f} MB peak {time.monotonic() - began:6.1f} s  {said}")
"""


def floods() -> None:
    print("Hostile writes, default limits (disk 1 GiB, files 20,000, wall time 60 s):")
    for kind in ("bwrap", "rlimit"):
        try:
            sandbox = get_sandbox(kind)
        except SandboxError as exc:
            print(f"  {kind}: not here ({exc})")
            continue
        places = [".", "TMPDIR"] + (["/dev/shm"] if kind == "bwrap" else [])
        for where in places:
            for what, size in (("bytes", 64 * 1024**2), ("files", 0)):
                with scratch.folder("coder-perf-") as folder:
                    (folder / "flood.py").write_text(FLOOD)
                    command = [sys.executable, "flood.py", where, str(size)]
                    outcome = sandbox.run(command, folder, Limits(), {"PATH": "/usr/bin:/bin"})
                    left = outcome.output.strip().splitlines()[-1:] or [""]
                    print(
                        f"  {kind:6} {where:8} {what:5}: stopped by {outcome.exceeded or 'exit'}"
                        f" after {outcome.seconds:5.1f} s {left[0][:60]}"
                    )
                    print(f"{'':26}{_written(folder, kind, where)}")


def _written(folder: Path, kind: str, where: str) -> str:
    # What is left once the run is gone: its folder (the tmpfs of bwrap are gone with it).
    from sandbox.disk import walked

    if where == "." or kind == "rlimit":
        found = walked(folder)
        return f"left in its folder: {found.bytes / 1024**2:.0f} MB, {found.files} files"
    return "(in its own tmpfs, gone with it)"


def reports() -> None:
    print("Reading a hostile report (peak memory of the reading process, time):")
    with tempfile.TemporaryDirectory() as tmp:
        entity = Path(tmp) / "entities.xml"
        with open(entity, "w") as f:
            # Each 3-byte reference expands to 270 bytes: an amplification of 90, under 100.
            f.write(f'<?xml version="1.0"?><!DOCTYPE t [<!ENTITY e "{"x" * 270}">]>')
            f.write('<testsuite><testcase classname="a.B" name="t"><system-out>')
            for _ in range(40):
                f.write("&e;" * (1024**2 // 3))
            f.write("</system-out></testcase></testsuite>")
        plain = Path(tmp) / "plain.xml"
        with open(plain, "w") as f:
            f.write("<testsuite>")
            for _ in range(250):
                f.write('<testcase classname="a.B" name="t"/>' * (1024**2 // 36))
            f.write("</testsuite>")
        for path, label in ((entity, "40 MB of entities"), (plain, "250 MB of elements")):
            for when in ("before", "after"):
                done = subprocess.run(
                    [sys.executable, "-c", READ, when, str(path)], capture_output=True, text=True
                )
                print(f"  {label:18} {when:6}: {(done.stdout or done.stderr).strip()[-120:]}")


def deep_tree() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp) / "t"
        top.mkdir()
        code = "import os\nfor _ in range(3000):\n    os.mkdir('a')\n    os.chdir('a')\n"
        subprocess.run([sys.executable, "-c", code], cwd=top, check=True)
        began = time.monotonic()
        scratch.remove(top)
        print(f"A tree 3,000 deep removed in {time.monotonic() - began:.1f} s")


if __name__ == "__main__":
    floods()
    reports()
    deep_tree()
