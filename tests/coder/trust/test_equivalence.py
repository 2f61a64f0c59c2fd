"""The equivalence judge: never calls two changes the same when their meaning can differ."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coder.trust.equivalence import file_tier, key, tier

SAME = [
    ("a.py", "x = [1, 2]\n", "x = [1,2]  # a list\n", "ast"),
    ("a.py", "def f():\n    return 1\n", "def f():\n\n    return 1\n", "ast"),
    ("a.ts", "f(a,  b); // call\n", "f(a, b); // call\n", "tokens"),
    ("a.c", "int  y;\n", "int y;\n", "tokens"),
    ("A.java", "class A {\n    int y;\n}\n", "class A {\n  int y;   \n}\n", "tokens"),
    ("x.rs", "fn f() {\n\tg();\n}\n", "fn f() {\n    g();\n}\n", "tokens"),
    ("n.txt", "same\n", "same\n", "exact"),
]
DIFFERENT = [
    # A return moved out of its block: the same words, another program.
    (
        "a.py",
        "def f(x):\n    if x:\n        return 1\n    return 2\n",
        "def f(x):\n    if x:\n        return 1\n        return 2\n",
    ),
    ("a.py", "s = 'a b'\n", "s = 'a  b'\n"),
    ("a.py", "x = (\n", "x = (  \n"),  # unparsable: only equal text is the same
    ("a.js", "return\nx\n", "return x\n"),  # a line break ends the statement
    ("a.js", "s = 'a b'\n", "s = 'a  b'\n"),
    ("a.c", "#define X 1\nint y;\n", "#define X 2\nint y;\n"),
    ("a.c", "a = b - -c;\n", "a = b --c;\n"),
    ("a.sh", "a=b\n", "a = b\n"),
    ("a.yaml", "a:\n  b: 1\n", "a:\n    b: 1\n"),
    # Comments that carry meaning.
    ("main.go", "//go:build linux\npackage main\n", "package main\n"),
    ("a.ts", '/// <reference path="a.d.ts" />\nlet x = 1;\n', "let x = 1;\n"),
    ("a.py", "# -*- coding: latin-1 -*-\nx = 1\n", "x = 1\n"),
    ("a.py", "#!/usr/bin/python2\nx = 1\n", "#!/usr/bin/python3\nx = 1\n"),
    # Spacing that shows: stringified code, numbers that would join, line numbers.
    ("a.c", "assert(x==1);\n", "assert(x == 1);\n"),
    ("a.rs", "let s = stringify!(a+b);\n", "let s = stringify!(a + b);\n"),
    ("a.c", "x = 0x1e+1;\n", "x = 0x1e + 1;\n"),
    ("a.c", "int y;\n\nint z;\n", "int y;\nint z;\n"),
    ("a.h", 'auto s = R"(\n  a\n    b\n)";\n', 'auto s = R"(\n  a\n  b\n)";\n'),
    ("a.c", "int c = 'a  b';\n", "int c = 'a b';\n"),
    ("a.jsonl", '{"a":1}\n{"b":2}\n', '{"a":\n1}\n{"b":2}\n'),
    ("App.js", "f(<p>Hello {name}</p>);\n", "f(<p>Hello{name}</p>);\n"),
    ("a.scala", "if x then\n  a()\nb()\n", "if x then\n  a()\n  b()\n"),
    ("a.js", "return\u2028x\n", "return x\n"),
    ("a.py", "# a\x85b\n# -*- coding: latin-1 -*-\ns = 1\n", "# a\x85b\n#\ns = 1\n"),
    # Languages where spaces between tokens can matter are compared as text.
    ("a.rb", "puts foo -1\n", "puts foo - 1\n"),
    ("a.css", ".a.b { }\n", ".a .b { }\n"),
    ("a.jsx", "const x = <p>a  b</p>;\n", "const x = <p>a b</p>;\n"),
    ("n.txt", "one two\n", "one  two\n"),
]


@pytest.mark.parametrize(("path", "one", "two", "expected"), SAME)
def test_equivalent_versions(path: str, one: str, two: str, expected: str) -> None:
    assert file_tier(path, one, two) == expected
    assert key(path, one) == key(path, two)


@pytest.mark.parametrize(("path", "one", "two"), DIFFERENT)
def test_versions_whose_meaning_can_differ(path: str, one: str, two: str) -> None:
    assert file_tier(path, one, two) == "different"
    assert key(path, one) != key(path, two)


def test_input_too_large_or_repetitive_to_lex_quickly_is_compared_as_text() -> None:
    # pygments takes tens of seconds on such input; the judge never hands it over.
    for text in ("\n" * 40_000, "/" * 20_000, '"\\"' * 10_000, "    int a;\n" * 3_000):
        assert key("a.c", text) == ("exact", text)
    assert key("a.py", "x = 1\n" * 200_000)[0] == "exact"


def test_a_set_of_files_is_as_close_as_its_loosest_file() -> None:
    assert tier({"a.py": "x=1\n", "b.c": "int y;"}, {"a.py": "x = 1\n", "b.c": "int y;"}) == "ast"
    assert tier({"a.py": "x=1\n"}, {"a.py": "x=1\n", "b.c": ""}) == "different"
    assert tier({}, {}) == "exact"


SNIPPETS = st.sampled_from(
    ["x = 1", "x=1", "x = 2", "if x:\n    y()", "if x:\n  y()", "y()", "# c", "'a b'", "'a  b'"]
)


@given(st.lists(SNIPPETS, max_size=4), st.lists(SNIPPETS, max_size=4))
def test_the_key_agrees_with_the_tier(one: list[str], two: list[str]) -> None:
    for suffix in ("py", "js", "txt"):
        first, second = "\n".join(one) + "\n", "\n".join(two) + "\n"
        same = file_tier(f"f.{suffix}", first, second) != "different"
        assert same == (key(f"f.{suffix}", first) == key(f"f.{suffix}", second))
