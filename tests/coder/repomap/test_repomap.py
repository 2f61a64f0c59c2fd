"""The repository map: tags, ranking, fitting, the tags cache, in real git repositories."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest

from coder.edits.workspace import Workspace
from coder.repomap import CACHE_NAME, RepoMap, get_repo_map
from coder.repomap.pagerank import ALPHA, pagerank
from coder.repomap.parsing import MANY, extract_all
from coder.repomap.ranking import Focus, rank, words_of
from coder.repomap.render import fit, render
from coder.repomap.tags import FileTags, dumps, extract, loads
from coder.repomap.tokens import estimate, get_tokenizer
from coder.seams.repo import Repo

from ..gitrepo import git, make_repo

APP = """\
from billing import compute_invoice_total
from shipping import ShippingQuote


def handle_order(order):
    quote = ShippingQuote(order.address)
    return compute_invoice_total(order.items) + quote.price()
"""
BILLING = """\
TAX_RATE = 0.2


def compute_invoice_total(items):
    return sum(item.price for item in items) * (1 + TAX_RATE)


def refund_invoice(invoice):
    return -invoice.total
"""
SHIPPING = """\
class ShippingQuote:
    def __init__(self, address):
        self.address = address

    def price(self):
        return 5
"""
WEATHER = """\
def forecast_rainfall(city):
    return 0


class BarometerReading:
    pass
"""
FILES = {"app.py": APP, "billing.py": BILLING, "shipping.py": SHIPPING, "weather.py": WEATHER}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path, FILES)


def repo_map(root: Path, budget: int = 1024) -> RepoMap:
    return get_repo_map(Workspace(root), Repo.find(root), budget)


# Tags


SAMPLES = {
    "a.py": (
        "from x import Foo\nLIMIT = 3\nclass A(Base):\n    @dec\n    def m(self, x: T):\n"
        "        return f(x).g(Foo())\ndef top():\n    pass\n",
        {"A", "m", "top", "LIMIT"},
        {"Base", "dec", "T", "f", "g", "Foo"},
    ),
    "a.js": (
        "class A extends B { m(x) { return f(x).g(); } }\nfunction h() { new C(); }\n"
        "const k = () => 1;\nexport default function z() {}\n",
        {"A", "m", "h", "k", "z"},
        {"B", "C", "f", "g"},
    ),
    "a.ts": (
        "interface I { m(): void }\ntype T = { a: number };\nenum E { X }\n"
        "class A extends B implements I { n(x: T): U { return f(x); } }\n",
        {"I", "m", "T", "E", "A", "n"},
        {"B", "I", "T", "U", "f"},
    ),
    "a.tsx": ("function App(): Props { return <div>{f()}</div>; }\n", {"App"}, {"Props", "f"}),
    "a.go": (
        "package p\ntype S struct { a int }\nfunc (s *S) M() { f(); s.g() }\n"
        "func F() T { return pkg.H() }\n",
        {"S", "M", "F"},
        {"f", "g", "T", "H"},
    ),
    "a.rs": (
        "struct S { a: i32 }\ntrait T { fn m(&self); }\nimpl T for S { fn m(&self) { f(); } }\n"
        "fn main() { let v: Vec<S> = Vec::new(); println!(); }\nconst C: i32 = 1;\n",
        {"S", "T", "m", "main", "C"},
        {"f", "Vec", "new", "println"},
    ),
    "A.java": (
        "class A extends B { void m() { f(); o.g(); new C(); } A() {} }\ninterface I {}\n",
        {"A", "m", "I"},
        {"B", "C", "f", "g"},
    ),
    "a.c": (
        "#define M 1\nstruct S { int a; };\ntypedef struct S T;\n"
        "int f(int x) { return g(x); }\nstatic char *h(void) { T t; return 0; }\n",
        {"M", "S", "T", "f", "h"},
        {"g", "T"},
    ),
    "a.cpp": (
        "namespace n { class A : public B { void m() { f(); n::h(); } }; }\nvoid A::k() {}\n",
        {"n", "A", "m", "k"},
        {"B", "f", "h"},
    ),
    "a.rb": (
        "module M\n  class A < B\n    def m(x)\n      f(x)\n      C.new\n    end\n"
        "    def self.s; end\n  end\nend\n",
        {"M", "A", "m", "s"},
        {"B", "C", "f", "new"},
    ),
}


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_each_language_has_a_query_finding_definitions_and_references(path: str) -> None:
    text, defined, used = SAMPLES[path]
    tags = extract(path, text)
    assert {d.name for d in tags.definitions} >= defined
    assert {name for name, _ in tags.references} >= used


def test_a_definition_keeps_its_line_and_the_definitions_around_it() -> None:
    tags = extract("a.py", "class A:\n    def m(self):\n        pass\n\ndef f():\n    pass\n")
    by_name = {d.name: d for d in tags.definitions}
    assert (by_name["m"].line, by_name["m"].text) == (1, "    def m(self):")
    assert by_name["m"].context == ((0, "class A:"),)
    assert by_name["f"].context == ()
    assert loads(dumps(tags)) == tags


@pytest.mark.parametrize(
    "path, text, names",
    [
        ("a.c", "typedef int A, B;\ntypedef struct s S, *P;\n", ["A", "B", "S"]),
        ("a.cpp", "typedef int A, B;\n", ["A", "B"]),
        ("a.go", "package p\nvar x, y int\n", ["x", "y"]),
    ],
)
def test_two_names_one_definition_declares_are_both_kept(path: str, text: str, names) -> None:
    # Their parent is one node: sorting by its span compared the name nodes, TypeError, and
    # the map failed, and every request with it, in any repository with such a line.
    assert [d.name for d in extract(path, text).definitions] == names


def test_the_strings_constants_hold_are_left_out() -> None:
    text = "SECRET_KEY = 'django-insecure-x'\nTOKEN: str = f\"abc\"\nLIMIT = 3\ndef f(x='a'):\n"
    shown = [d.text for d in extract("settings.py", text).definitions]
    assert shown == ["SECRET_KEY = …", "TOKEN: str = …", "LIMIT = 3", "def f(x=…):"]
    shown = [d.text for d in extract("k.c", '#define KEY "s3cret"\n#define N 4\n').definitions]
    assert shown == ["#define KEY …", "#define N 4"]


SECRETS = {
    # Only a constant whose value began with a quote lost it: these were sent whole.
    "config/secrets.py": (
        'AWS = {"key": "AKIA-SECRET-1", "secret": "SECRET-2"}\n'
        'DB_URL = os.environ.get("DB", "postgres://admin:SECRET-3@db/prod")\n'
        'KEY = ("-----BEGIN RSA PRIVATE KEY-----SECRET-4"\n       "abc")\n'
        'PEM = """-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-5\n-----END"""\n'
        'A = B = "SECRET-6"\n'
        'token = "x"; OTHER = "SECRET-7"\n'
        'def connect(password="SECRET-8", name=f"{user}SECRET-9"): pass\n'
        'class Settings(Base, key=b"SECRET-10"):\n    pass\n'
    ),
    "config.js": 'const cfg = { apiKey: "SECRET-1" };\nexport const T = `SECRET-2${x}`;\n'
    'const url = new URL("https://user:SECRET-3@host");\n',
    "k.ts": 'export const KEY: string = "SECRET-1";\nenum Keys { A = "SECRET-2" }\n',
    "k.go": 'package p\nvar Secret = []byte("SECRET-1")\nconst Raw = `SECRET-2`\n',
    "k.rs": 'static KEY: &[u8] = b"SECRET-1";\nconst R: &str = r#"SECRET-2"#;\n',
    "K.java": 'class K { static final String KEY = "SECRET-1"; char[] p = "SECRET-2".x(); }\n',
    "k.c": '#define URL make("SECRET-1")\n#define F(x) g(x, "SECRET-2")\n',
    "k.cpp": 'const char *k = R"(SECRET-1)";\nvoid f(const char *p = "SECRET-2") {}\n',
    "k.rb": 'KEYS = { aws: "SECRET-1", gcp: %w[SECRET-2] }\nKEY = :"SECRET-3"\n',
    "comments.py": (
        "TOKEN = env('T')  # was SECRET-1 before rotation\n"
        "def login(user):  # admin password: SECRET-2\n    pass\n"
    ),
    "comments.js": (
        "const KEY_RE = /SECRET-1[a-z]+/g;  // SECRET-2\nfunction auth() { /* SECRET-3 */ }\n"
    ),
    "comments.ts": "export const R = /SECRET-1/; // SECRET-2\n",
    "comments.go": "package p\nconst N = 1 // SECRET-1\nfunc F() {} /* SECRET-2 */\n",
    "comments.rs": "const N: u8 = 1; // SECRET-1\nfn f() {} /* SECRET-2 */\n",
    "Comments.java": "class Comments { // SECRET-1\n  void f() {} /* SECRET-2 */ }\n",
    "comments.c": "int f(void); // SECRET-1\nint g(void); /* SECRET-2 */\n",
    "comments.rb": "KEY_RE = /SECRET-1/ # SECRET-2\ndef f; end # SECRET-3\n",
}
NUMBERS = (
    "ACCOUNT = 4111111111111111\n"
    "SALT = 0xDEADBEEFCAFEBABE1234\n"
    "DIGEST = f(9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08)\n"
    "LIMIT = 1000\n"
)


@pytest.mark.parametrize("path", sorted(SECRETS))
def test_no_string_literal_reaches_the_map(path: str) -> None:
    tags = extract(path, SECRETS[path])
    shown = "\n".join(d.text for d in tags.definitions)
    assert tags.definitions and "SECRET" not in shown and "…" in shown


def test_numbers_long_enough_to_be_keys_do_not_reach_the_map() -> None:
    shown = [d.text for d in extract("numbers.py", NUMBERS).definitions]
    assert shown == ["ACCOUNT = …", "SALT = …", "DIGEST = f(…)", "LIMIT = 1000"]


def test_syntax_errors_and_undecodable_bytes_leave_the_rest_readable(root: Path) -> None:
    (root / "broken.py").write_text("def careful_helper(:\n    pass\n\ndef intact_helper():\n")
    (root / "latin.py").write_bytes(b"def caf\xe9_helper():\n    return '\xff'\n")
    (root / "binary.c").write_bytes(b"int f() {\0\0\0}")
    names = {d.name for d in extract("broken.py", (root / "broken.py").read_text()).definitions}
    assert "intact_helper" in names
    text = repo_map(root).text(["app.py"], "")
    assert "intact_helper" in text and "helper():" in text  # the Latin-1 file, decoded
    assert "binary.c" not in text


@pytest.mark.parametrize(
    "path, tail",
    [
        ("a.py", "f(" * 40_000 + ")" * 40_000),  # deeper than 65,535: 4 s, and growing
        ("a.js", "x = " + "(" * 100_000),  # one ERROR node of 100,000 brackets: 5 s
        ("a.c", "int x = " + "{" * 100_000),
    ],
)
def test_a_file_the_queries_would_take_minutes_over_is_left_out(path: str, tail: str) -> None:
    # tree-sitter's queries slow down without bound on such trees: a megabyte of brackets
    # held the first request for minutes, with no way to interrupt it.
    head = {
        "a.py": "def early():\n    pass\n",
        "a.js": "function early() {}\n",
        "a.c": "int early(void) {}\n",
    }[path]
    assert extract(path, head).definitions
    assert extract(path, head + tail) == FileTags()
    wide = "".join(f"def f{i}():\n    g{i}()\n" for i in range(3000))  # many nodes, shallow
    assert len(extract("a.py", wide).definitions) == 3000


def test_files_that_define_nothing_are_listed_after_the_definitions(root: Path) -> None:
    (root / "script.py").write_text("from billing import refund_invoice\nrefund_invoice(1)\n")
    (root / "empty.py").write_text("")
    text = repo_map(root).text(["app.py"], "")
    assert text.endswith("script.py:\n") and "empty.py" not in text


# Ranking and fitting


def test_the_map_shows_what_the_chat_file_uses_first_and_never_the_chat_file(root: Path) -> None:
    text = repo_map(root).text(["app.py"], "fix the total")
    assert "app.py" not in text and "handle_order" not in text
    files = [line for line in text.splitlines() if not line.startswith(" ")]
    assert set(files[:2]) == {"billing.py:", "shipping.py:"}
    assert files[-1] == "weather.py:"
    assert "def compute_invoice_total(items):" in text and "class ShippingQuote:" in text


def test_files_and_names_the_request_mentions_come_first(root: Path) -> None:
    by_file = repo_map(root).text(["app.py"], "also look at weather.py")
    assert by_file.splitlines()[0] == "weather.py:"
    tags = {path: extract(path, text) for path, text in FILES.items()}
    focus = Focus(frozenset({"app.py"}), words_of("use BarometerReading"))
    assert rank(tags, focus, 10)[0].definition.name == "BarometerReading"


def test_plain_words_and_private_names_count_less_than_telling_names() -> None:
    texts = {
        "chat.py": "def run(store):\n    store.get(1)\n    store.get(2)\n"
        "    compute_shipping_cost(store)\n    _cached_rates()\n",
        "plain.py": "def get(key):\n    pass\n",
        "telling.py": "def compute_shipping_cost(store):\n    pass\n",
        "private.py": "def _cached_rates():\n    pass\n\ndef public_rates():\n    pass\n",
    }
    tags = {path: extract(path, text) for path, text in texts.items()}
    entries = rank(tags, Focus(frozenset({"chat.py"})), 10)
    names = [e.definition.name for e in entries]
    assert names.index("compute_shipping_cost") < names.index("get")
    assert names.index("public_rates") < names.index("_cached_rates")


def test_the_map_fits_its_budget_and_grows_with_it(root: Path) -> None:
    count = get_tokenizer().count
    sizes = []
    for budget in (10, 30, 60, 1024):
        text = repo_map(root, budget).text(["app.py"], "")
        assert count(text) <= budget
        sizes.append(len(text.splitlines()))
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    assert repo_map(root, 1).text(["app.py"], "") == ""


def test_fitting_takes_the_longest_prefix_of_entries_within_the_budget() -> None:
    tags = {f"m{i}.py": extract(f"m{i}.py", f"def function_{i}():\n    pass\n") for i in range(50)}
    entries = rank(tags, Focus(), 100)
    for budget in (5, 17, 40, 90):
        text = fit(entries, budget, estimate)
        assert estimate(text) <= budget
        shown = len(text.splitlines()) // 2
        assert text == render(entries[:shown])
        assert estimate(render(entries[: shown + 1])) > budget


def test_words_of_a_request_keep_identifiers_and_paths() -> None:
    words = words_of("Make `Repo.find` in coder/seams/repo.py use find_root().")
    assert {"Repo", "find", "coder/seams/repo.py", "repo", "find_root"} <= words


def test_pagerank_gives_what_networkx_gives() -> None:
    nx = pytest.importorskip("networkx")
    rng = random.Random(7)
    nodes = 60
    edges = {(rng.randrange(nodes), rng.randrange(nodes)): rng.random() for _ in range(200)}
    edges = {(s, t): w for (s, t), w in edges.items() if s != t}
    restart = [1.0 if n in (3, 8) else 0.0 for n in range(nodes)]
    graph = nx.DiGraph()
    graph.add_nodes_from(range(nodes))  # some have no edges at all: dead ends
    graph.add_weighted_edges_from((s, t, w) for (s, t), w in edges.items())
    personal = {n: r for n, r in enumerate(restart) if r}
    sources, targets = zip(*edges, strict=True)
    for alpha in (ALPHA, 0.85):
        expected = nx.pagerank(graph, alpha, personalization=personal, dangling=personal, tol=1e-10)
        ours = pagerank(nodes, sources, targets, list(edges.values()), restart, alpha)
        assert max(abs(ours[n] - expected[n]) for n in range(nodes)) < 1e-5
    uniform = nx.pagerank(graph, ALPHA, tol=1e-10)
    ours = pagerank(nodes, sources, targets, list(edges.values()))
    assert max(abs(ours[n] - uniform[n]) for n in range(nodes)) < 1e-5


def test_tokens_are_counted_with_cl100k_without_the_network() -> None:
    tokenizer = get_tokenizer()
    assert tokenizer.exact  # litellm's copy of the ranks file was found and checked
    assert tokenizer.count("hello world") == 2


# The cache


def test_a_second_map_parses_nothing_and_a_changed_file_is_parsed_again(root: Path) -> None:
    first = repo_map(root)
    text = first.text(["app.py"], "")
    assert first.parsed == 4 and (root / CACHE_NAME).is_file()
    again = repo_map(root)  # a new map, as in a new process: the tags come from the file
    assert again.text(["app.py"], "") == text and again.parsed == 0
    path = root / "weather.py"
    path.write_text(WEATHER + "\n\ndef sunshine_hours():\n    return 8\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    text = again.text(["app.py"], "")
    assert again.parsed == 1 and "def sunshine_hours():" in text
    assert repo_map(root).text(["app.py"], "") == text


def test_the_same_request_reuses_the_map_without_ranking_again(root: Path, monkeypatch) -> None:
    from coder.repomap import mapper

    the_map = repo_map(root)
    text = the_map.text(["app.py"], "fix billing")
    monkeypatch.setattr(mapper, "rank", lambda *args: pytest.fail("ranked again"))
    assert the_map.text(["app.py"], "fix billing") == text
    assert the_map.parsed == 0


def test_a_file_that_could_not_be_read_is_read_again_once_it_can_be(root: Path) -> None:
    # chmod 000 and back changes no modification time: the file's empty tags were cached
    # under its stamp, and it stayed out of the map, in this chat and the next ones.
    locked = {"billing.py"}

    def read(path: str) -> str:
        if path in locked:
            raise PermissionError(13, "Permission denied", path)
        return (root / path).read_text()

    repo = Repo.find(root)
    the_map = RepoMap(root, repo.files, read, 1024)
    assert "compute_invoice_total" not in the_map.text(["app.py"], "")
    locked.clear()
    assert "compute_invoice_total" in the_map.text(["app.py"], "")
    assert the_map.parsed == 1
    assert "compute_invoice_total" in repo_map(root).text(["app.py"], "")


def test_a_refresh_reads_every_file_again(root: Path) -> None:
    the_map = repo_map(root)
    text = the_map.text(["app.py"], "")
    the_map.refresh()
    assert the_map.text(["app.py"], "") == text and the_map.parsed == 4


@pytest.mark.parametrize(
    "damage",
    [
        b"this is not a database at all",
        b"SQLite format 3\x00" + b"\xff" * 5000,
        b"",
    ],
)
def test_a_damaged_cache_is_replaced_silently(root: Path, damage: bytes) -> None:
    expected = repo_map(root).text(["app.py"], "")
    (root / CACHE_NAME).write_bytes(damage)
    damaged = repo_map(root)
    assert damaged.text(["app.py"], "") == expected and damaged.parsed == 4
    healed = repo_map(root)
    assert healed.text(["app.py"], "") == expected and healed.parsed == 0


@pytest.mark.parametrize("target", [None, b"", b"precious\n"])
def test_a_cache_that_is_a_symlink_is_never_written_through(
    root: Path, tmp_path_factory, target: bytes | None
) -> None:
    # A cloned repository can hold the cache's name as a symlink to anywhere: sqlite created
    # a missing target, and turned an empty file into its database.
    outside = tmp_path_factory.mktemp("outside") / "victim"
    if target is not None:
        outside.write_bytes(target)
    (root / CACHE_NAME).symlink_to(outside)
    for _ in range(2):
        the_map = repo_map(root)
        assert "compute_invoice_total" in the_map.text(["app.py"], "")
        assert the_map.parsed == 4  # without a cache
    assert (root / CACHE_NAME).is_symlink()
    if target is None:
        assert not outside.exists()
    else:
        assert outside.read_bytes() == target


def test_a_cache_that_is_a_folder_is_left_alone(root: Path) -> None:
    (root / CACHE_NAME).mkdir()
    assert "compute_invoice_total" in repo_map(root).text(["app.py"], "")
    assert (root / CACHE_NAME).is_dir()


def test_a_cache_from_another_version_is_read_again(root: Path) -> None:
    expected = repo_map(root).text(["app.py"], "")
    (root / CACHE_NAME).unlink()
    with sqlite3.connect(root / CACHE_NAME) as db:  # an older layout, with stale rows
        db.execute("CREATE TABLE tags (path TEXT, data BLOB)")
        db.execute("INSERT INTO tags VALUES ('billing.py', 'nonsense')")
    db.close()
    older = repo_map(root)
    assert older.text(["app.py"], "") == expected and older.parsed == 4
    with sqlite3.connect(root / CACHE_NAME) as db:
        db.execute("UPDATE tags SET data = 'not json'")
    db.close()
    garbled = repo_map(root)
    assert garbled.text(["app.py"], "") == expected and garbled.parsed == 4
    # Rows that made loading the cache raise, and with it every request of the chat.
    for data in ("[" * 100_000, '[[["f", 1e400, "def f():", []]], []]'):
        with sqlite3.connect(root / CACHE_NAME) as db:
            db.execute("UPDATE tags SET data = ? WHERE path = 'billing.py'", (data,))
        db.close()
        hostile = repo_map(root)
        assert hostile.text(["app.py"], "") == expected and hostile.parsed == 1


def test_the_map_leaves_out_huge_files_symlinks_and_coders_own(root: Path) -> None:
    (root / "huge.py").write_text("def enormous_function():\n    pass\n" + "#" * 1_000_001)
    (root / "link.py").symlink_to(root / "weather.py")
    (root / ".coder.chat.history.md").write_text("def from_the_transcript():\n")
    text = repo_map(root).text(["app.py"], "")
    assert "enormous_function" not in text and "link.py" not in text
    assert "from_the_transcript" not in text and "forecast_rainfall" in text


def test_names_that_are_not_utf8_or_hold_a_newline_are_left_out(root: Path) -> None:
    # git hands on a Latin-1 name's bytes as surrogates, which neither sqlite nor a request
    # to the model can encode: the whole map failed, and every request with it.
    for name in (b"caf\xe9.py", b"two\nlines.py"):
        (root / os.fsdecode(name)).write_text("def hidden_away_function():\n    pass\n")
    text = repo_map(root).text(["app.py"], "")
    assert "compute_invoice_total" in text and "hidden_away_function" not in text
    text.encode("utf-8")


def test_without_git_the_map_skips_hidden_and_vendored_folders(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    for folder in (".venv/lib", "node_modules/pkg"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "vendored.py").write_text("def vendored_function():\n    pass\n")
    text = get_repo_map(Workspace(tmp_path), None, 1024).text(["app.py"], "")
    assert "compute_invoice_total" in text and "vendored_function" not in text


def test_untracked_files_in_a_virtualenv_are_left_out_but_tracked_ones_kept(root: Path) -> None:
    # python -m venv (before 3.13) writes no .gitignore: until the user adds one, the files of
    # pip and setuptools were untracked and not ignored, and filled the map.
    for folder in ("env/lib/python3.11/site-packages/pip", ".venv/lib", "node_modules/pkg"):
        (root / folder).mkdir(parents=True)
        (root / folder / "internals.py").write_text("def vendored_function():\n    pass\n")
    (root / "vendor").mkdir()
    (root / "vendor" / "ours.py").write_text("def tracked_vendored_function():\n    pass\n")
    git(root, "add", "vendor")
    (root / "new_module.py").write_text("def untracked_new_function():\n    pass\n")
    text = repo_map(root).text(["app.py"], "")
    assert "tracked_vendored_function" in text and "untracked_new_function" in text
    assert "def vendored_function" not in text


def test_files_gitignore_names_are_left_out_even_when_tracked(root: Path) -> None:
    # Committed before .gitignore named it: git still tracks it, and it went to the model.
    (root / "secrets.py").write_text("def rotate_production_keys():\n    pass\n")
    (root / "local.py").write_text("def local_only_helper():\n    pass\n")
    git(root, "add", "secrets.py")
    git(root, "commit", "-qm", "oops")
    (root / ".gitignore").write_text("secrets.py\nlocal.py\n")
    text = repo_map(root).text(["app.py"], "")
    assert "compute_invoice_total" in text
    assert "rotate_production_keys" not in text and "local_only_helper" not in text


def test_without_git_vendored_files_do_not_use_up_the_listing(tmp_path: Path, monkeypatch) -> None:
    # The walk went through .venv and node_modules before it dropped them: a virtualenv of
    # 50,000 files used up the listing, and the map of the project's own code was empty.
    from coder.repomap import mapper

    monkeypatch.setattr(mapper, "MOST_LISTED", 10)
    (tmp_path / "src").mkdir()
    for name, text in FILES.items():
        (tmp_path / "src" / name).write_text(text)
    for folder in (".venv/lib", "node_modules/pkg"):
        (tmp_path / folder).mkdir(parents=True)
        for i in range(20):
            (tmp_path / folder / f"m{i}.py").write_text(f"def vendored_{i}():\n    pass\n")
    text = get_repo_map(Workspace(tmp_path), None, 1024).text(["src/app.py"], "")
    assert "compute_invoice_total" in text and "vendored" not in text


def test_many_files_are_parsed_in_worker_processes_with_the_same_tags(monkeypatch) -> None:
    from coder.repomap import parsing

    texts = {f"m{i}.py": f"def function_{i}():\n    return helper_{i % 7}()\n" for i in range(MANY)}
    texts["odd.py"] = "def caf\udce9():\n    pass\n"  # an undecodable byte, carried through
    expected = {path: extract(path, text) for path, text in texts.items()}
    # Parsing in this process would fail now: the workers must do it all.
    monkeypatch.setattr(parsing, "extract", lambda path, text: pytest.fail("parsed here"))
    parallel = extract_all(texts, workers=2)
    assert parallel == expected
    assert parallel["m3.py"] == FileTags(expected["m3.py"].definitions, (("helper_3", 1),))


def test_a_file_that_takes_a_worker_too_long_is_left_out_and_the_rest_kept(monkeypatch) -> None:
    # Crafted text takes tree-sitter seconds to parse (16 s for a megabyte), all in C, with
    # nothing to cut it short: the chat waited, once per file, at every request.
    from coder.repomap import parsing

    # 2 s a file: a loaded machine still parses a small file (its grammar loaded first) in time.
    monkeypatch.setattr(parsing, "FILE_SECONDS", 2.0)
    line = "\"'`" * 300 + "\n"  # stray quotes: 120 such lines take about 0.7 s, these 4,800 28 s
    assert extract("slow.cpp", "int early() {}\n" + line * 120).definitions
    slow = "int early() {}\n" + line * 4800
    texts = {"slow.cpp": slow, "fine.js": "function fine() {}\n", "also.py": "def also():\n"}
    found = extract_all(texts, workers=1)
    assert found["slow.cpp"] == FileTags()
    assert found["fine.js"] == extract("fine.js", texts["fine.js"])
    assert found["also.py"] == extract("also.py", texts["also.py"])


def test_a_file_the_parser_loops_forever_on_leaves_the_map_and_the_chat_working(
    root: Path, monkeypatch
) -> None:
    # tree-sitter-typescript issue 323: parsing this never ends, in C, holding the GIL. In
    # the chat's own process (fewer than 200 files) the first request hung for good, deaf
    # to Ctrl-C.
    from coder.repomap import parsing

    monkeypatch.setattr(parsing, "FILE_SECONDS", 2.0)  # a small file parses in time, loaded
    (root / "hang.tsx").write_text("export function shown() {}\n<a {{b:>c:d(e f)\n")
    the_map = repo_map(root)
    text = the_map.text(["app.py"], "")
    assert "compute_invoice_total" in text and "hang.tsx" not in text
    assert the_map.parsed == 5  # hang.tsx included: left out for good, until it changes
    assert repo_map(root).text(["app.py"], "") == text


def test_without_a_temporary_folder_the_files_are_parsed_here(monkeypatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", "/nonexistent/coder-test")  # as a bad TMPDIR
    texts = {"a.py": "def here():\n    pass\n"}
    assert extract_all(texts) == {"a.py": extract("a.py", texts["a.py"])}


def test_workers_are_killed_when_the_map_is_interrupted(monkeypatch) -> None:
    from coder.repomap import parsing

    # Workers that would take a minute, and a Ctrl-C while the map waits for them.
    monkeypatch.setattr(parsing, "_WORKER", "import time; time.sleep(60)  # {root!r} {seconds!r}")
    started = []

    def start(chunk, base):
        started.append(run := real_start(chunk, base))
        return run

    def interrupted(chunk, process, output):
        raise KeyboardInterrupt

    real_start = parsing._start
    monkeypatch.setattr(parsing, "_start", start)
    monkeypatch.setattr(parsing, "_finish", interrupted)
    texts = {f"m{i}.py": "def f():\n    pass\n" for i in range(MANY)}
    with pytest.raises(KeyboardInterrupt):
        extract_all(texts, workers=2)
    assert len(started) == 2
    assert all(process.poll() is not None for process, _ in started)
