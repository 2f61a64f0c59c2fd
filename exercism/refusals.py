"""What a solution may not do to the harness, checked before any test runs: declare a test
framework's package or the harness's (Java), redefine the test framework's macros or add to
its namespace (C++), define Rust's assertion macros, or change the build beyond what the
exercise allows (Rust's manifest). A refused solution fails as tampering, with what was seen;
each language's row names its check."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from exercism.exercise import Exercise

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the same parser, before it joined the standard library
    import tomli as tomllib

FRAMEWORK_PACKAGES = (
    "org.junit",
    "org.assertj",
    "org.opentest4j",
    "org.apiguardian",
    "net.bytebuddy",
    "io.reactivex",
    "org.reactivestreams",
    "org.json",
    "coder",
)
"""Java packages of the jars on the tests' class path and of the harness's reporter."""
JAVA_PACKAGE = re.compile(r"(?m)^\s*package\s+([\w.]+)\s*;")
JAVA_MODULE = re.compile(r"(?m)^\s*(open\s+)?module\s+[\w.]+\s*\{")
COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def java(exercise: Exercise, solution: Mapping[str, str]) -> str | None:
    """A solution file in a test framework's package, or a module declaration (which would
    change how every class is found)."""
    for name, text in solution.items():
        code = COMMENTS.sub(" ", text)
        for package in JAVA_PACKAGE.findall(code):
            if any(package == p or package.startswith(p + ".") for p in FRAMEWORK_PACKAGES):
                return f"{name} declares the package {package}, a test framework's or the harness's"
        if JAVA_MODULE.search(code):
            return f"{name} declares a Java module"
    return None


DIRECTIVE = re.compile(r"(?m)^[ \t]*#[ \t]*(define|undef)[ \t]+(\w+)")
CATCH_DEFINED = re.compile(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Z][A-Z0-9_]*)\b")
WINDOWS = {"NOMINMAX", "WIN32_LEAN_AND_MEAN"}
"""Defined by Catch's header on Windows only, and by programs of their own there."""
CATCH_NAMESPACE = re.compile(r"\bnamespace\s+(Catch|Clara)\b")


def cpp(exercise: Exercise, solution: Mapping[str, str]) -> str | None:
    """A solution file that defines or undefines a macro of Catch (its assertions, test cases,
    settings, include guard) or of the exercise's build (EXERCISM_RUN_ALL_TESTS), or adds to
    Catch's namespace."""
    taken = _catch_macros(exercise.folder / "test" / "catch.hpp")
    for name, text in solution.items():
        code = COMMENTS.sub(" ", text)
        if found := CATCH_NAMESPACE.search(code):
            return f"{name} adds to the namespace {found.group(1)}, the test framework's"
        for action, macro in DIRECTIVE.findall(code):
            ours = macro.startswith(("CATCH", "INTERNAL_CATCH", "EXERCISM_"))
            if ours or macro in taken:
                return f"{name} {action}s {macro}, a macro of the test framework or the build"
    return None


@functools.cache
def _catch_macros(header: Path) -> frozenset[str]:
    """The macros Catch's header defines (REQUIRE, TEST_CASE, its include guard...)."""
    try:
        return frozenset(CATCH_DEFINED.findall(header.read_text(errors="replace"))) - WINDOWS
    except OSError:
        return frozenset()


ASSERTIONS = "assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|debug_assert_ne|panic"
RUST_MACRO = re.compile(rf"(?:macro_rules!|\bas)\s*(r#)?({ASSERTIONS}|matches|unreachable)\b")
MANIFEST = "Cargo.toml"
TABLES = {"package", "dependencies", "dev-dependencies", "lints", "badges", "features"}
"""The manifest's tables a solution may have; the rest change the build (targets, build
scripts, patches, profiles)."""
PACKAGE_KEYS = {"build", "links", "workspace", "autolib", "autobins", "autotests"}
PACKAGE_KEYS |= {"autoexamples", "autobenches", "default-run", "resolver"}
"""The [package] keys that change what is built or run, held to the exercise's own."""
DEPENDENCY_KEYS = {"version", "features", "default-features", "optional"}
"""What a dependency may say: a version from the registry (the prepared one), no path, git
or other registry."""


def rust(exercise: Exercise, solution: Mapping[str, str]) -> str | None:
    """A solution that redefines an assertion macro, or whose manifest changes the build."""
    for name, text in solution.items():
        if name.endswith(".rs") and (found := RUST_MACRO.search(COMMENTS.sub(" ", text))):
            return f"{name} defines the macro {found.group(2)}!, which the tests assert with"
    if MANIFEST not in solution:
        return None
    try:
        mine = tomllib.loads(solution[MANIFEST])
        pristine = tomllib.loads((exercise.folder / MANIFEST).read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return None  # cargo says what is wrong with it, as an ordinary failure
    return _manifest(mine, pristine)


def _manifest(mine: dict, pristine: dict) -> str | None:
    """Why a solution's manifest changes the build beyond the exercise's own; None if not."""
    for table in sorted(set(mine) - TABLES):
        if mine[table] != pristine.get(table):
            return f"{MANIFEST} adds or changes [{table}], which changes the build"
    if mine.get("features") != pristine.get("features"):
        return f"{MANIFEST} changes [features], which chooses the tests that are built"
    package, theirs = mine.get("package") or {}, pristine.get("package") or {}
    for key in sorted(PACKAGE_KEYS):
        if isinstance(package, dict) and package.get(key) != theirs.get(key):
            return f"{MANIFEST} sets `{key}` in [package], which changes the build"
    for table in ("dependencies", "dev-dependencies"):
        for crate, spec in (mine.get(table) or {}).items():
            if isinstance(spec, dict) and set(spec) - DEPENDENCY_KEYS:
                keys = ", ".join(sorted(set(spec) - DEPENDENCY_KEYS))
                return f"{MANIFEST} takes the crate {crate} from elsewhere ({keys})"
    return None
