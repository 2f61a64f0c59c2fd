"""The harness's last test, added to an exercise's own in every language but Python (whose
runner watches each test itself) and run after them: it writes the run's token, and a run
without it did not run to its end (a solution that printed the closing line and exited 0)."""

from __future__ import annotations

import glob
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from sandbox import readback

TOKEN_VARIABLE = "CODER_CANARY_TOKEN"
FILE_VARIABLE = "CODER_CANARY_FILE"
FILE = ".coder-canary"
"""In the run's folder (the driver's {here})."""
NAME = "zzzz_coder_canary"
"""The test's name, or the start of it: after every other in the orders runners use (a file's
name, a test's, a class's)."""


@dataclass(frozen=True)
class Canary:
    """How a language's last test is added: appended to each test file matching `into`, or
    written as a new file `file`; {package} in its code is filled from the first test file
    by the pattern `package` (Go's package clause)."""

    code: str
    into: str | None = None
    """A glob of test files, relative to the exercise's folder."""
    file: str | None = None
    """A new file, relative to the exercise's folder."""
    package: str | None = None
    """A pattern whose first group, searched in the first test file, fills {package}."""


def plant(canary: Canary, folder: Path, test_files: tuple[str, ...]) -> int:
    """Add the last test to the exercise copied to folder; how many times it must run."""
    if canary.file is not None:
        code = canary.code
        if canary.package is not None:
            first = (folder / test_files[0]).read_text(encoding="utf-8", errors="replace")
            found = re.search(canary.package, first)
            code = code.replace("{package}", found.group(1) if found else "main")
        (folder / canary.file).parent.mkdir(parents=True, exist_ok=True)
        (folder / canary.file).write_text(code, encoding="utf-8")
        return 1
    assert canary.into is not None
    files = sorted(glob.glob(canary.into, root_dir=folder))
    for name in files:
        with open(folder / name, "a", encoding="utf-8") as f:
            f.write(canary.code)
    return len(files)


def token() -> str:
    """A new token, one run's own."""
    return secrets.token_hex(16)


def ran_to_end(folder: Path, expected: str, times: int) -> bool:
    """Whether the last test wrote the token as many times as it was planted (the file read
    as the run's hostile data: Refused when it is not a small regular file)."""
    data = readback.read(folder, FILE, cap=64 * 1024)
    if data is None:
        return times == 0
    lines = data.decode(errors="replace").split()
    return len(lines) == times and all(line == expected for line in lines)
