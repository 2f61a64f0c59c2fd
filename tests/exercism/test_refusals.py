"""What a solution may not do to the harness (exercism/refusals.py), checked before its tests
run: each refusal with what it names, what stays allowed, and no reference solution of the
polyglot set refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from exercism import LANGUAGES, discover, get_language, layout
from exercism.exercise import Exercise
from exercism.refusals import cpp, go, java, rust

POLYGLOT = Path(__file__).resolve().parents[3] / "shared" / "polyglot-benchmark"
MANIFEST = '[package]\nedition = "2021"\nname = "acronym"\nversion = "1.7.0"\n'


def _exercise(tmp_path: Path, **files: str) -> Exercise:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return Exercise("x", tmp_path, "", (), (), ())


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("package org.assertj.core.api;\npublic class Assertions {}", "org.assertj.core.api"),
        ("/* mine */ package org.junit.platform.console;\nclass ConsoleLauncher {}", "org.junit"),
        ("package coder.report;\nclass Listener {}", "coder.report"),
        ("open module cheat { }", "module"),
        ("\\u0070ackage org.opentest4j;\nclass TestAbortedException {}", "org.opentest4j"),
        ("// \\u000apackage org.junit.jupiter.api;\nclass Test {}", "org.junit"),
        ("package org . junit . jupiter;\nclass A {}", "org.junit.jupiter"),
    ],
)
def test_java_refuses_a_frameworks_package_or_a_module(tmp_path, text, named) -> None:
    why = java(_exercise(tmp_path), {"src/main/java/A.java": text})
    assert why and why.tampering and named in why.why


def test_java_allows_its_own_packages_and_mentions_in_comments(tmp_path: Path) -> None:
    text = "// package org.junit;\npackage org.junitish;\nimport org.json.JSONObject;\nclass A {}"
    text += '\nclass B { String s = "package org.junit;"; }\n'
    assert java(_exercise(tmp_path), {"src/main/java/A.java": text}) is None


TEST = '#include "a.h"\nTEST_CASE("x") { REQUIRE(f(from_string("1")) == 1); }\n'
CATCH = (
    "#ifndef TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED\n"
    "#define TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED\n"
    "#define REQUIRE( ... ) INTERNAL_CATCH_TEST( x )\n#define SECTION( ... ) y\n"
    "#  define NOMINMAX\n"
)


@pytest.mark.parametrize(
    "text",
    [
        "#undef EXERCISM_RUN_ALL_TESTS",
        "  #  define REQUIRE(x) (void)0",
        "#define CATCH_CONFIG_DISABLE",
        "#undef SECTION",
        "#define TWOBLUECUBES_SINGLE_INCLUDE_CATCH_HPP_INCLUDED",
        "namespace Catch { template <> struct StringMaker<int>; }",
        "%:undef REQUIRE",  # a digraph
        "#define \\\nREQUIRE(...) 1",  # a continued line
        'const char* a() { return "/*"; }\n#undef REQUIRE\nconst char* b() { return "*/"; }',
        '#pragma push_macro("REQUIRE")',
        "#define from_string(s) 0",  # a name the tests use
        "namespace std { inline bool operator==(const vector<int>&, const vector<int>&) {} }",
    ],
)
def test_cpp_refuses_a_catch_or_build_macro_redefined(tmp_path: Path, text: str) -> None:
    exercise = _exercise(tmp_path, **{"test/catch.hpp": CATCH, "a_test.cpp": TEST})
    exercise = dataclasses.replace(exercise, test_files=("a_test.cpp",))
    why = cpp(exercise, {"a.h": f"#pragma once\n{text}\n", "a.cpp": "int f();\n"})
    assert why and why.tampering


def test_cpp_allows_macros_of_its_own(tmp_path: Path) -> None:
    exercise = _exercise(tmp_path, **{"test/catch.hpp": CATCH})
    text = "#if !defined(A_H)\n#define A_H\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
    text += "#define NOMINMAX\nnamespace catchy {}\n#endif\n"
    alone = "#define SECTION(c) do { if (!(c)) return 0; } while (0)\nint f();\n"
    assert cpp(exercise, {"a.h": text, "a.cpp": "// #define REQUIRE(x)\n" + alone}) is None
    included = {"a.h": '#include "a.cpp"\n', "a.cpp": alone}
    assert cpp(exercise, included)  # the header brings it to the tests


@pytest.mark.parametrize(
    ("added", "named"),
    [
        ('build = "src/lib.rs"\n', "build"),
        ("autotests = false\n", "autotests"),
        ('links = "z"\n', "links"),
        ("\n[lib]\nproc-macro = true\n", "[lib]"),
        ('\n[[test]]\nname = "mine"\nharness = false\n', "[test]"),
        ('\n[build-dependencies]\ncc = "1"\n', "[build-dependencies]"),
        ("\n[profile.test]\noverflow-checks = false\n", "[profile]"),
        ('\n[features]\ndefault = ["x"]\nx = []\n', "[features]"),
        ('\n[dependencies]\nrand = { path = "/tmp/rand" }\n', "path"),
        ('\n[dependencies]\nrand = { git = "https://example.org/rand" }\n', "git"),
        ('\n[patch.crates-io]\nrand = { path = "x" }\n', "[patch]"),
    ],
)
def test_rust_refuses_a_manifest_that_changes_the_build(tmp_path, added, named) -> None:
    exercise = _exercise(tmp_path, **{"Cargo.toml": MANIFEST})
    why = rust(exercise, {"Cargo.toml": MANIFEST + added, "src/lib.rs": ""})
    assert why and why.tampering and named in why.why


def test_rust_allows_crates_from_the_registry_and_lints(tmp_path: Path) -> None:
    exercise = _exercise(tmp_path, **{"Cargo.toml": MANIFEST})
    mine = MANIFEST.replace('"1.7.0"', '"2.0.0"') + (
        '\n[dependencies]\nrand = "0.8"\nregex = { version = "1", features = ["std"] }\n'
        '\n[lints.clippy]\nnew_without_default = "allow"\n'
    )
    assert rust(exercise, {"Cargo.toml": mine, "src/lib.rs": ""}) is None
    resolver = MANIFEST + 'resolver = "2"\n'
    assert rust(exercise, {"Cargo.toml": resolver, "src/lib.rs": ""}) is None


def test_rust_refuses_a_manifest_it_cannot_read_as_an_ordinary_failure(tmp_path: Path) -> None:
    exercise = _exercise(tmp_path, **{"Cargo.toml": MANIFEST})
    newer = MANIFEST + 'build = "src/lib.rs"\nmetadata = { note = "x", }\n'  # TOML 1.1
    why = rust(exercise, {"Cargo.toml": newer, "src/lib.rs": ""})
    assert why and not why.tampering and "TOML" in why.why


@pytest.mark.parametrize("name", ["assert_eq", "assert", "panic", "r#assert_ne"])
def test_rust_refuses_a_macro_named_like_an_assertion(tmp_path: Path, name: str) -> None:
    code = f"#[macro_export]\nmacro_rules! {name} {{ ($($t:tt)*) => {{}}; }}\n"
    assert rust(_exercise(tmp_path), {"src/lib.rs": code})
    renamed = f"#[macro_export]\nmacro_rules! mine {{ () => {{}}; }}\npub use mine as {name};\n"
    assert rust(_exercise(tmp_path), {"src/lib.rs": renamed})
    assert rust(_exercise(tmp_path), {"src/lib.rs": code.replace(name, "hashmap")}) is None
    spaced = code.replace("macro_rules!", "macro_rules !")
    assert rust(_exercise(tmp_path), {"src/lib.rs": spaced})


def test_rust_refuses_a_files_text_included_and_allows_words_in_strings(tmp_path) -> None:
    reads = 'const T: &str = include_str!("../tests/acronym.rs");\n'
    assert rust(_exercise(tmp_path), {"src/lib.rs": reads})
    words = 'pub const NOTE: &str = "treated as unreachable, as panic";\n// as assert\n'
    assert rust(_exercise(tmp_path), {"src/lib.rs": words}) is None


def test_no_reference_solution_of_the_polyglot_set_is_refused() -> None:
    if not POLYGLOT.is_dir():
        pytest.skip(f"{POLYGLOT} is not there")
    refused = []
    for language, folder in layout(POLYGLOT, tuple(LANGUAGES)).items():
        check = get_language(language).refuse
        for exercise in discover(folder, language=language):
            if check is not None and (why := check(exercise, exercise.example_solution())):
                refused.append(f"{language}/{exercise.name}: {why.why}")
    assert not refused


GO_TEST = """package beer

var verseTestCases = []struct{ verse int }{{1}}

const (
\tanswer = "x"
)

func Title(s string) string { return s }
"""


def test_go_refuses_what_only_the_tests_declare_and_allows_their_helpers(tmp_path) -> None:
    exercise = _exercise(tmp_path, **{"beer_test.go": GO_TEST})
    exercise = dataclasses.replace(exercise, test_files=("beer_test.go",))
    reads = "package beer\n\nfunc Verse(n int) string { return answer }\n"
    why = go(exercise, {"beer.go": reads})
    assert why and why.tampering and "answer" in why.why
    own = "package beer\n\nfunc Verse(answer int) string {\n\tverseTestCases := 1\n"
    own += "\t_ = verseTestCases\n\treturn Title(`answer`) // verseTestCases\n}\n"
    assert go(exercise, {"beer.go": own}) is None
