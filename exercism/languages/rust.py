"""Rust: `cargo test` offline, every ignored test included; the crates that the exercises'
manifests name (theirs and their reference solutions') vendored by --prepare into a folder
that cargo reads in place of the registry. Each run has its own CARGO_HOME and target. Only
the exercise's test files run (`--test '*'`), one test at a time, each reported as it ends in
libtest's log, which goes to the driver."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from exercism import refusals
from exercism.exercise import Exercise
from exercism.language import Language, Report
from exercism.prepare import run
from sandbox import Limits

VENDOR = "{cache}/rust/vendor"


def prepare(folder: Path, exercises: Sequence[Exercise], say: Callable[[str], None]) -> None:
    """The crates of every manifest of the exercises (Cargo.toml and the reference
    solutions' .meta/Cargo-example.toml) vendored into folder/vendor."""
    manifests = [
        path
        for e in exercises
        for path in (e.folder / "Cargo.toml", e.folder / ".meta" / "Cargo-example.toml")
        if path.is_file() and _has_dependencies(path.read_text())
    ]
    say(f"vendoring the crates of {len(manifests)} Rust manifests")
    work = folder / "manifests"
    copies = []
    for n, manifest in enumerate(manifests):
        crate = work / str(n)
        (crate / "src").mkdir(parents=True)
        (crate / "src" / "lib.rs").write_text("")
        text = re.sub(r"(?m)^name\s*=.*$", f'name = "m{n}"', manifest.read_text(), count=1)
        (crate / "Cargo.toml").write_text(text)
        copies.append(crate / "Cargo.toml")
    if not copies:
        (folder / "vendor").mkdir()
        return
    syncs = [word for path in copies[1:] for word in ("--sync", str(path))]
    run(
        ["cargo", "vendor", "--manifest-path", str(copies[0]), *syncs, str(folder / "vendor")],
        folder,
        {"CARGO_HOME": str(folder / "cargo-home")},
    )
    shutil.rmtree(work)
    shutil.rmtree(folder / "cargo-home", ignore_errors=True)


def _has_dependencies(text: str) -> bool:
    return bool(re.search(r"(?m)^\[(dev-)?dependencies\]\s*\n\s*\w", text))


LANGUAGE = Language(
    name="rust",
    title="Rust",
    library="Rust standard library (and the crates already in Cargo.toml, if any)",
    fence="rust",
    programs=("cargo", "rustc"),
    install="install Rust with rustup (https://rustup.rs): cargo and rustc on PATH",
    root=("rustc", "--print", "sysroot"),
    probe=("cargo", "--version"),
    steps=(
        (
            "cargo",
            "test",
            "--offline",
            "--no-fail-fast",
            "--test",
            "*",
            "--config",
            'source.crates-io.replace-with="vendored"',
            "--config",
            f'source.vendored.directory="{VENDOR}"',
            "--",
            "--include-ignored",
            "--test-threads=1",
            "--logfile",
            "{report}",
        ),
    ),
    env={"CARGO_HOME": "{here}/.cargo-home", "CARGO_TERM_COLOR": "never"},
    compile_error=r"error: could not compile",
    # libtest's log names each test's outcome as it ends; the option is deprecated, and says so.
    report=Report(form="libtest"),
    refuse=refusals.rust,
    noise=(r" in \d+(\.\d+)?s", r"finished in \d+\.\d+s", r"warning: `--logfile` is deprecated\n?"),
    needs=Limits(seconds=300, cpu_seconds=600, memory=0, processes=512, file_size=0),
    prepare=prepare,
)
