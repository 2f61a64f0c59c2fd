"""Go: `go test` offline, with a build cache of the standard library made by --prepare and
shared read-only (Go builds on without writing to it); nothing else is fetched: the
exercises use the standard library alone. Each test is reported by `go test -json`'s events,
which the driver reads (the go command writes them, not the tests' program)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from exercism import refusals
from exercism.exercise import Exercise
from exercism.language import Language, Report
from exercism.prepare import run
from sandbox import Limits

ENV = {
    "GOCACHE": "{cache}/go/build",
    "GOPATH": "{here}/.gopath",
    "GOPROXY": "off",
    "GOTOOLCHAIN": "local",
    "GOTELEMETRY": "off",
    "GOFLAGS": "-buildvcs=false",
    "CGO_ENABLED": "0",
    # go test -json then prints a build's errors as text, not as events.
    "GODEBUG": "gotestjsonbuildtext=1",
}
"""The tests' Go settings: the shared build cache, no module proxy or toolchain download."""

WARM_TEST = 'package warm\n\nimport "testing"\n\nfunc TestWarm(t *testing.T) {}\n'


def prepare(folder: Path, exercises: Sequence[Exercise], say: Callable[[str], None]) -> None:
    """The standard library and the test harness compiled into folder/build."""
    say("compiling Go's standard library (a minute or two)")
    module = Path(tempfile.mkdtemp(prefix="coder-go-warm-"))
    try:
        env = ENV | {"GOCACHE": str(folder / "build"), "GOPATH": str(module / "gopath")}
        (module / "go.mod").write_text("module warm\n\ngo 1.21\n")
        (module / "warm_test.go").write_text(WARM_TEST)
        for command in (["go", "build", "std"], ["go", "test", "-count=1", "./..."]):
            run(command, module, env)
    finally:
        shutil.rmtree(module, ignore_errors=True)


LANGUAGE = Language(
    name="go",
    title="Go",
    library="Go standard library",
    fence="go",
    programs=("go",),
    install="install Go 1.21 or newer (https://go.dev/doc/install) and put its bin on PATH",
    root=("go", "env", "GOROOT"),
    probe=("go", "version"),
    steps=(("go", "test", "-json", "-count=1", "./..."),),
    env=ENV,
    compile_error=r"\[(build|setup) failed\]",
    noise=(r"(?m)(?<=\t)\d+\.\d+s$", r" \(\d+\.\d+s\)"),
    needs=Limits(seconds=180, cpu_seconds=360, memory=0, processes=512, file_size=0),
    report=Report(events=True),
    refuse=refusals.go,
    prepare=prepare,
)
