"""What a solution may not do to the harness, checked before any test runs: declare a test
framework's package or the harness's (Java), redefine the test framework's macros or add to
its namespace (C++), define Rust's assertion macros or include the tests' text, use what only
Go's test files declare (their answers), or change the build beyond what the exercise allows
(Rust's manifest). A refused solution fails as tampering, with what was seen;
each language's row names its check."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from exercism import source
from exercism.exercise import Exercise
from exercism.language import Refusal

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
JAVA_PACKAGE = re.compile(r"(?m)^\s*package\s+([\w.\s]+?)\s*;")
JAVA_MODULE = re.compile(r"(?m)^\s*(open\s+)?module\s+[\w.]+\s*\{")


def java(exercise: Exercise, solution: Mapping[str, str]) -> Refusal | None:
    """A solution file in a test framework's package, or a module declaration (which would
    change how every class is found)."""
    for name, text in solution.items():
        code = source.java(text)
        for package in JAVA_PACKAGE.findall(code):
            package = re.sub(r"\s+", "", package)
            if any(package == p or package.startswith(p + ".") for p in FRAMEWORK_PACKAGES):
                return Refusal(f"{name} declares the package {package}, a test framework's")
        if JAVA_MODULE.search(code):
            return Refusal(f"{name} declares a Java module")
    return None


DIRECTIVE = re.compile(r"(?m)^[ \t]*#[ \t]*(define|undef)[ \t]+(\w+)")
PRAGMA = re.compile(r"(?m)^[ \t]*#[ \t]*pragma[ \t]+(push_macro|pop_macro)\b")
INCLUDE = re.compile(r'(?m)^[ \t]*#[ \t]*include[ \t]*"([^"]+)"')
WORD = re.compile(r"\b[A-Za-z_]\w*\b")
WINDOWS = {"NOMINMAX", "WIN32_LEAN_AND_MEAN"}
"""Defined by Catch's header on Windows only, and by programs of their own there."""
FRAMEWORK_NAMESPACE = re.compile(r"\bnamespace\s+(Catch|Clara)\b")
STD_OPERATOR = re.compile(r"\bnamespace\s+std\s*\{[^{}]*\boperator\s*(==|!=)")
HEADERS = (".h", ".hpp", ".hh", ".hxx")


def cpp(exercise: Exercise, solution: Mapping[str, str]) -> Refusal | None:
    """A header the tests include (or a file such a header includes) that defines, undefines
    or pushes a macro of Catch, of the build or of a name the tests use; any solution file
    that adds to Catch's namespace, or an equality operator to std's."""
    taken = _macros(exercise)
    for name, text in solution.items():
        code = source.cpp(text)
        if found := FRAMEWORK_NAMESPACE.search(code):
            return Refusal(f"{name} adds to the namespace {found.group(1)}, the test framework's")
        if STD_OPERATOR.search(code):
            return Refusal(f"{name} defines an equality operator in the namespace std")
        if name not in _reaching_tests(solution):
            continue
        if found := PRAGMA.search(code):
            return Refusal(f"{name} uses #pragma {found.group(1)}, which changes macros unseen")
        for action, macro in DIRECTIVE.findall(code):
            if macro.startswith(("CATCH", "INTERNAL_CATCH", "EXERCISM_")) or macro in taken:
                return Refusal(f"{name} {action}s {macro}, a macro of the tests or their build")
    return None


def _reaching_tests(solution: Mapping[str, str]) -> set[str]:
    """The headers among the solution's files, and the files they include: what the test
    file's compilation reads (a .cpp compiled alone defines macros for itself only)."""
    reaching = {name for name in solution if name.endswith(HEADERS)}
    for name in list(reaching):
        included = INCLUDE.findall(source.cpp(solution[name], literals=True))
        reaching.update(f for f in included if f in solution)
    return reaching


def _macros(exercise: Exercise) -> frozenset[str]:
    """The names a solution's header may not make macros of: every one Catch's header
    defines, and every word of the exercise's test files."""
    found = set(_catch_macros(exercise.folder / "test" / "catch.hpp"))
    for name in exercise.test_files:
        try:
            found.update(WORD.findall(source.cpp((exercise.folder / name).read_text())))
        except OSError:
            continue
    return frozenset(found)


@functools.cache
def _catch_macros(header: Path) -> frozenset[str]:
    """The macros Catch's header defines (REQUIRE, TEST_CASE, its include guard...)."""
    try:
        text = source.cpp(header.read_text(errors="replace"))
    except OSError:
        return frozenset()
    return frozenset(m for _, m in DIRECTIVE.findall(text) if m.isupper()) - WINDOWS


GO_TOP = re.compile(r"(?m)^(?:var|const)\s+([A-Za-z_]\w*)")
GO_BLOCK = re.compile(r"(?ms)^(?:var|const)\s*\((.*?)^\)")
GO_DECLARED = (
    r"(?:\b(?:var|const|func|type)\s+{0}\b|\b{0}\s*(?:,\s*\w+\s*)*:=|[(,]\s*{0}\s+[\w*\[])"
)
"""Where the solution declares a name itself (a local, a parameter), which it may then use."""


def go(exercise: Exercise, solution: Mapping[str, str]) -> Refusal | None:
    """A solution file that uses a variable or constant that only the test files declare
    (their tables of cases and answers: the tests are of the solution's own package, so it
    compiles under go test). Their functions may be there for the solution (a Title)."""
    theirs = set()
    for name in exercise.test_files:
        try:
            code = source.go((exercise.folder / name).read_text())
        except OSError:
            continue
        theirs.update(GO_TOP.findall(code))
        for block in GO_BLOCK.findall(code):
            theirs.update(re.findall(r"(?m)^\t([A-Za-z_]\w*)", block))
    for name, text in solution.items():
        code = source.go(text)
        for word in sorted(theirs & set(WORD.findall(code))):
            if not re.search(GO_DECLARED.format(re.escape(word)), code):
                return Refusal(f"{name} uses {word}, which only the exercise's tests declare")
    return None


ASSERTIONS = "assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|debug_assert_ne|panic"
RUST_MACRO = re.compile(rf"(?:macro_rules\s*!|\bas)\s*(r#)?({ASSERTIONS}|matches|unreachable)\b")
RUST_INCLUDE = re.compile(r"\binclude(_str|_bytes)?\s*!")
MANIFEST = "Cargo.toml"
TABLES = {"package", "dependencies", "dev-dependencies", "lints", "badges", "features"}
"""The manifest's tables a solution may have; the rest change the build (targets, build
scripts, patches, profiles)."""
PACKAGE_KEYS = {"build", "links", "workspace", "autolib", "autobins", "autotests"}
PACKAGE_KEYS |= {"autoexamples", "autobenches", "default-run"}
"""The [package] keys that change what is built or run, held to the exercise's own."""
DEPENDENCY_KEYS = {"version", "features", "default-features", "optional"}
"""What a dependency may say: a version from the registry (the prepared one), no path, git
or other registry."""


def rust(exercise: Exercise, solution: Mapping[str, str]) -> Refusal | None:
    """A solution that defines an assertion macro or includes a file's text at compile time
    (the tests'), or whose manifest changes the build or cannot be checked."""
    for name, text in solution.items():
        if not name.endswith(".rs"):
            continue
        code = source.rust(text)
        if found := RUST_MACRO.search(code):
            return Refusal(f"{name} defines the macro {found.group(2)}!, which the tests use")
        if found := RUST_INCLUDE.search(code):
            return Refusal(f"{name} includes a file's text with {found.group(0)} (the tests')")
    if MANIFEST not in solution:
        return None
    try:
        mine = tomllib.loads(solution[MANIFEST])
        pristine = tomllib.loads((exercise.folder / MANIFEST).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        why = f"{MANIFEST} could not be checked: it is not TOML 1.0 ({exc})"
        return Refusal(why, tampering=False)
    return _manifest(mine, pristine)


def _manifest(mine: dict, pristine: dict) -> Refusal | None:
    """Why a solution's manifest changes the build beyond the exercise's own; None if not."""
    for table in sorted(set(mine) - TABLES):
        if mine[table] != pristine.get(table):
            return Refusal(f"{MANIFEST} adds or changes [{table}], which changes the build")
    if mine.get("features") != pristine.get("features"):
        return Refusal(f"{MANIFEST} changes [features], which chooses the tests that are built")
    package, theirs = mine.get("package") or {}, pristine.get("package") or {}
    for key in sorted(PACKAGE_KEYS):
        if not isinstance(package, dict) or package.get(key) != theirs.get(key):
            return Refusal(f"{MANIFEST} sets `{key}` in [package], which changes the build")
    for table in ("dependencies", "dev-dependencies"):
        specs = mine.get(table) or {}
        if not isinstance(specs, dict):
            return Refusal(f"{MANIFEST}'s [{table}] is not a table")
        for crate, spec in specs.items():
            if isinstance(spec, dict) and set(spec) - DEPENDENCY_KEYS:
                keys = ", ".join(sorted(set(spec) - DEPENDENCY_KEYS))
                return Refusal(f"{MANIFEST} takes the crate {crate} from elsewhere ({keys})")
    return None
