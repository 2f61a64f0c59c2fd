"""JavaScript: jest with babel, as the exercises' package.json runs it, from one install that
--prepare makes with npm and each run links as its node_modules (read-only); `xtest(` and
`xit(` become `test(` and `it(`."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from exercism.canary import FILE_VARIABLE, NAME, TOKEN_VARIABLE, Canary
from exercism.exercise import Exercise
from exercism.language import Language
from exercism.prepare import run
from sandbox import Limits

PACKAGES = {
    "@babel/core": "^7.25.2",
    "@exercism/babel-preset-javascript": "^0.2.1",
    "babel-jest": "^29.6.4",
    "core-js": "~3.37.1",
    "jest": "^29.7.0",
}
"""What the exercises' package.json needs to run its tests (its linters left out)."""


def prepare(folder: Path, exercises: Sequence[Exercise], say: Callable[[str], None]) -> None:
    """jest, babel and the exercises' babel preset installed by npm into folder/node_modules."""
    say(f"installing {', '.join(PACKAGES)} from npm")
    manifest = {"name": "coder-polyglot-javascript", "private": True, "devDependencies": PACKAGES}
    (folder / "package.json").write_text(json.dumps(manifest, indent=1))
    run(["npm", "install", "--no-audit", "--no-fund", "--silent"], folder)


CANARY = Canary(
    into="*.spec.js",
    code=f"""

test('{NAME}', () => {{
  require('fs').appendFileSync(process.env.{FILE_VARIABLE}, `${{process.env.{TOKEN_VARIABLE}}}\\n`);
}});
""",
)
"""The harness's last test, at the end of each test file (jest runs a file's tests in the
order they are written)."""


LANGUAGE = Language(
    name="javascript",
    title="JavaScript",
    library="JavaScript language and Node's built-in modules (no npm packages)",
    fence="javascript",
    programs=("node",),
    install="install Node.js 18 or newer (apt-get install nodejs npm)",
    probe=("node", "--version"),
    steps=(
        (
            "node",
            "node_modules/jest/bin/jest.js",
            "--ci",
            "--no-watchman",
            "--cacheDirectory={here}/.jest-cache",
            # jest's 5 s per test: parallel-letter-frequency's 50 workers take longer here.
            "--testTimeout=60000",
        ),
    ),
    links={"node_modules": "{cache}/javascript/node_modules"},
    unskip=((r"\bxtest\(", "test("), (r"\bxit\(", "it("), (r"\bxdescribe\(", "describe(")),
    passed=r"(?m)^Tests:(?!.*failed).*\b[1-9]\d* passed",
    noise=(r"(?m)^Time:.*$", r" \(\d+(\.\d+)? ?m?s\)"),
    needs=Limits(seconds=120, cpu_seconds=240, memory=0, processes=256, file_size=0),
    canary=CANARY,
    prepare=prepare,
)
