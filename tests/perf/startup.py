"""Benchmark: wall time of `coder --help` and `coder --exit` (start, banner, exit).

Target (issue 3): under 0.5 s each on a 2-core machine. Each command runs 10 times in a fresh
git repository with one file; the median and the slowest are printed. Run:

    python tests/perf/startup.py
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 10


def timed(command: list[str], cwd: Path) -> float:
    began = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - began


def main() -> None:
    coder = shutil.which("coder") or str(Path(sys.executable).with_name("coder"))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        (root / "a.py").write_text("print('hello')\n")
        for label, args in (
            ("coder --help", ["--help"]),
            ("coder --exit a.py", ["--exit", "a.py"]),
        ):
            timed([coder, *args], root)  # warm the file cache
            times = [timed([coder, *args], root) for _ in range(RUNS)]
            print(
                f"{label:<20} median {statistics.median(times):.3f} s, slowest {max(times):.3f} s"
            )


if __name__ == "__main__":
    main()
