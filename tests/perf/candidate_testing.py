"""Benchmark: how long testing candidates takes when each test run lasts 3 s.

Three candidate changes and the unedited code are tested in temporary copies of a repository
of 300 files: once one after the other (how coder did it before), once all at once (how it
does it now), with no sandbox and with bubblewrap. Target (issue 14): the concurrent phase
is bounded by the slowest run (about 3 s), well under the 9 s of three runs in a row.

Run: python tests/perf/candidate_testing.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from coder.trust.selection import testing
from sandbox import SandboxError, get_sandbox

TEST = "import time, sys\ntime.sleep(3)\nsys.exit(0 if 'x = 2' in open('m.py').read() else 1)\n"


def repository(root: Path) -> list[str]:
    files = {"m.py": "x = 1\n", "slow_test.py": TEST}
    files |= {f"pkg/mod_{n}.py": f"VALUE = {n}\n" * 50 for n in range(298)}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return sorted(files)


def main() -> None:
    changes = [{}, {"m.py": "x = 2\n"}, {"m.py": "x = 3\n"}, {"m.py": "x = 2  # two\n"}]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = tuple(repository(root))
        kinds: list[tuple[str, object]] = [("none", None)]
        try:
            kinds.append(("bwrap", get_sandbox("bwrap")))
        except SandboxError as exc:
            print(f"(bubblewrap left out: {exc})")
        count = len(changes) - 1
        print(f"{count} candidates and the unedited code, a 3 s test, {len(files)} files:")
        for name, sandbox in kinds:
            setup = testing.TestSetup(f"{sys.executable} slow_test.py", files, 60, sandbox)
            began = time.perf_counter()
            one_by_one = [testing.run_in_copy(root, setup, c) for c in changes]
            serial = time.perf_counter() - began
            began = time.perf_counter()
            together = testing.run_all(root, setup, changes)
            parallel = time.perf_counter() - began
            assert [r.status for r in one_by_one] == [r.status for r in together] == [1, 0, 1, 0]
            print(
                f"  sandbox {name:<5}  one after the other {serial:5.2f} s,"
                f" all at once {parallel:5.2f} s"
            )


if __name__ == "__main__":
    main()
