"""Starting a chat: settings, repository, files, model; then one request or the prompt."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Mapping
from pathlib import Path

from coder import exits
from coder.chat import config as settings
from coder.chat import repo_settings
from coder.chat.session import Session, SessionConfig
from coder.chat.usage import spent
from coder.edits.workspace import Workspace
from coder.errors import PathError, UsageError
from coder.repomap import CACHE_FILES
from coder.seams.repo import NO_IDENTITY, Repo
from coder.terminal import Terminal
from coder.trust.rtc import RtcSettings
from coder.trust.selection.candidates import MAX_CANDIDATES

TRANSCRIPT = ".coder.chat.history.md"
"""Every chat is appended to this file at the repository root."""


def run(args: argparse.Namespace, terminal: Terminal, environ: Mapping[str, str]) -> int:
    """Open the chat described by args; returns the exit status."""
    cwd = Path.cwd()
    repo = Repo.find(cwd) if args.git is not False else None
    flags = {k: v for k, v in vars(args).items() if k not in ("files", "message", "apply")}
    flags["read"] = tuple(args.read) if args.read else None
    if args.local_model and not args.model:
        flags["model"] = "local"
    home = Path(environ["HOME"]) if environ.get("HOME") else None
    config = settings.load(home, repo.root if repo else None, environ, flags)
    terminal.yes = config.yes
    if not args.exit:
        _preload(config, environ)
    if repo is None and config.git:
        repo = _offer_git_init(cwd, terminal)
    committing = repo is not None and config.auto_commits and not config.dry_run
    if committing and not repo.has_identity():
        raise UsageError(f"{NO_IDENTITY}; or pass --no-auto-commits")
    ws = Workspace(repo.root if repo else cwd)
    config, environ = _from_repository(config, repo, ws, terminal, environ, flags)
    session = _session(config, ws, repo, terminal, args.files, environ)
    from coder.chat.commands.files import affordable

    kept = [f for f in session.files if affordable(session, terminal, f)]
    if len(kept) < len(session.files) and _message(args) is not None:
        left = ", ".join(f for f in session.files if f not in kept)
        raise UsageError(f"{left} would not be sent, so the request is not either")
    session.files = kept
    terminal.say(_banner(session, terminal.interactive and _message(args) is None))
    if committing:
        _warn_about_git(repo, terminal)
    if repo is not None and config.gitignore and (terminal.interactive or terminal.yes):
        _offer_gitignore(repo, ws, terminal)
    if args.exit:
        return exits.OK
    message = _message(args)
    if message is not None:
        status = _one_request(session, message, terminal)
        _say_spent(session, terminal)
        return status
    from coder.chat import commands, repl

    chat = commands.Chat(
        session, terminal, config, lambda name: _model(config, name, terminal, environ)
    )
    repl.loop(chat)
    _say_spent(chat.session, terminal)
    return exits.OK


def _say_spent(session: Session, terminal: Terminal) -> None:
    """The exit line: what the session used in all, when it sent anything."""
    used = session.usage
    if used.prompt_tokens or used.completion_tokens or used.cost:
        terminal.say(spent(used))


def _one_request(session: Session, message: str, terminal: Terminal) -> int:
    """Run one request (-m, --message-file); its exit status, as the README documents them."""
    from coder.errors import ModelError

    try:
        outcome = session.turn(message)
    except ModelError as exc:
        terminal.error(f"coder: {exc}")
        return exits.FAILED
    if outcome.interrupted:
        return exits.INTERRUPTED
    if outcome.not_committed:
        return exits.NOT_COMMITTED
    if outcome.failed:
        return exits.PARTIAL if outcome.changed else exits.FAILED
    if outcome.unresolved:
        return exits.CHECKS_FAILED
    return exits.OK if outcome.applied else exits.FAILED


OWN_FILES = (TRANSCRIPT, ".coder.input.history", *CACHE_FILES)
"""The files coder itself writes at the repository root (not its config, which a team may
want to share)."""


def _offer_gitignore(repo: Repo, ws: Workspace, terminal: Terminal) -> None:
    """Ask once per repository whether coder's own files go into .gitignore; a no is kept in
    the repository's git config (coder.gitignoreOffered) and not asked again."""
    missing = [name for name in OWN_FILES if name not in repo.ignored(list(OWN_FILES))]
    if not missing or repo.config(r"^coder\.gitignoreoffered$"):
        return
    if not terminal.confirm(f"Add {', '.join(missing)} to .gitignore?", default=True):
        repo.remember("gitignoreOffered", "true")
        return
    current = ws.read(".gitignore")
    text = current.text if current.exists else ""
    if text and not text.endswith("\n"):
        text += "\n"
    text += "# coder's chat history and caches\n" + "".join(f"{name}\n" for name in missing)
    ws.write_all({".gitignore": text}, {".gitignore": current})
    terminal.say(f"Added {', '.join(missing)} to .gitignore (not committed).")


def _warn_about_git(repo: Repo, terminal: Terminal) -> None:
    problem = repo.problem()
    if problem:
        terminal.error(
            f"coder: git cannot commit here now: {problem}. coder will not write any file until"
            " that is done (or run it with --no-auto-commits)."
        )
    elif repo.detached():
        terminal.say("Note: HEAD is detached, so coder's commits will be on no branch.")


def _preload(config, environ: Mapping[str, str]) -> None:
    """Start importing litellm in the background when a model of the chat goes through it, so
    that the first request does not wait for all of it."""
    from coder.seams.llm import preload_for

    names = [config.model, config.weak_model, config.editor_model]
    preload_for(
        [n for n in names if n and n != "local"], config.api_base, environ, config.via_litellm
    )


def edit_format(config) -> str:
    """The edit format of a chat: the one set, else the one its editing model writes best."""
    from coder.seams.llm.settings import resolve
    from editformats.registry import format_for

    return config.edit_format or format_for(resolve(config.editor_model or config.model))


def _session(
    config, ws: Workspace, repo: Repo | None, terminal: Terminal, files, environ
) -> Session:
    from editformats import get_format

    try:
        fmt = get_format(edit_format(config))
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    try:
        chat_files = [ws.relative(os.path.expanduser(name)) for name in files]
        read_only = [ws.reference(name) for name in config.read]
    except PathError as exc:
        raise UsageError(str(exc)) from None
    if not 1 <= config.candidates <= MAX_CANDIDATES:
        wrong = config.candidates
        raise UsageError(f"--candidates must be from 1 to {MAX_CANDIDATES}, not {wrong}")
    if config.auto_test and not config.test_cmd:
        raise UsageError("--auto-test needs a test command: pass --test-cmd too")
    if config.refine < 0:
        raise UsageError(f"--refine must be 0 or more, not {config.refine}")
    if config.map_tokens < 0:
        raise UsageError(f"--map-tokens must be 0 (no map) or more, not {config.map_tokens}")
    if not (math.isfinite(config.timeout) and config.timeout > 0):
        raise UsageError(f"--timeout must be a number of seconds above 0, not {config.timeout}")
    if config.context_window is not None and config.context_window < 1:
        raise UsageError(f"--context-window must be 1 or more, not {config.context_window}")
    if config.rtc_samples < 1 or not 0 < config.rtc_threshold <= 1:
        raise UsageError("--rtc-samples must be at least 1 and --rtc-threshold in (0, 1]")
    weak = _model(config, config.weak_model, terminal, environ) if config.weak_model else None
    editor = _model(config, config.editor_model, terminal, environ) if config.editor_model else None
    contained = _sandbox(config.sandbox, terminal)
    return Session(
        model=_model(config, config.model, terminal, environ, config.context_window),
        fmt=fmt,
        ws=ws,
        repo=repo,
        terminal=terminal,
        config=SessionConfig(
            max_reflections=config.max_reflections,
            auto_commits=config.auto_commits and repo is not None,
            dry_run=config.dry_run,
            stream=config.stream,
            candidates=config.candidates,
            test_cmd=config.test_cmd,
            auto_test=config.auto_test,
            lint_cmd=config.lint_cmd,
            check_syntax=config.check_syntax,
            map_tokens=config.map_tokens,
            architect=config.architect,
            candidate_tests=config.candidate_tests,
            refine=config.refine,
            plan=config.plan,
            diverse=config.diverse,
            sandbox=contained,
            consistency_prompt=config.consistency_prompt,
            rtc=config.rtc,
            rtc_settings=RtcSettings(config.rtc_samples, config.rtc_threshold),
            secrets=(config.api_key,) if config.api_key else (),
        ),
        weak_model=weak,
        editor_model=editor,
        files=chat_files,
        read_only=read_only,
        transcript=ws.root / TRANSCRIPT,
    )


def _sandbox(kind: str | None, terminal: Terminal):
    """The sandbox asked for, said at start; None when none was."""
    if kind is None:
        return None
    from sandbox import SandboxError, get_sandbox

    try:
        chosen = get_sandbox(kind)
    except SandboxError as exc:
        raise UsageError(f"--sandbox {kind}: {exc}") from None
    terminal.say(f"Tests run in {chosen.description}.")
    return chosen


def _model(
    config, name: str, terminal: Terminal, environ: Mapping[str, str], window: int | None = None
):
    """The model named, on its route (directly to an OpenAI-compatible server, or through
    litellm); environ holds the provider keys; window, its input token limit when given."""
    from coder.seams.llm import ModelSettings, get_model

    if name == "local":
        from coder.seams import local

        served = local.serve(config.local_model, on_status=terminal.say)
        model_settings = ModelSettings(
            served.model,
            served.api_base,
            api_key="local",
            timeout=config.timeout,
            max_tokens=local.MAX_REPLY,
            context_window=min(window or local.INPUT_WINDOW, local.INPUT_WINDOW),
        )
    else:
        model_settings = ModelSettings(
            name,
            api_base=config.api_base,
            api_key=config.api_key,
            timeout=config.timeout,
            context_window=window,
        )
    return get_model(model_settings, environ, config.via_litellm, on_retry=terminal.error)


def _offer_git_init(cwd: Path, terminal: Terminal) -> Repo | None:
    if terminal.confirm(f"{cwd} is not a git repository. Create one?", default=False):
        return Repo.init(cwd)
    terminal.say("Working without git: no commits, no /undo.")
    return None


def _banner(session: Session, chatting: bool) -> str:
    """The first lines: the model, the format, the repository and the files; the commands'
    hint only for a chat at a terminal (not for -m, nor without a terminal)."""
    where = f"git repo {session.repo.root}" if session.repo else f"{session.ws.root} (no git)"
    files = ", ".join(session.files) or ("none (/add some)" if chatting else "none")
    hint = " /help lists the commands." if chatting else ""
    return (
        f"coder: model {session.model.name}, edit format {session.fmt.name}, {where}\n"
        f"Files in the chat: {files}.{hint}"
    )


def _message(args: argparse.Namespace) -> str | None:
    if args.message is not None:
        return args.message
    if args.message_file is not None:
        try:
            return args.message_file.read_bytes().decode("utf-8-sig")
        except OSError as exc:
            raise UsageError(f"cannot read {args.message_file}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise UsageError(
                f"{args.message_file} is not UTF-8 text (byte {exc.start:,} is not), so it is not"
                " sent"
            ) from None
    return None


def _from_repository(
    config: settings.Config,
    repo: Repo | None,
    ws: Workspace,
    terminal: Terminal,
    environ: Mapping[str, str],
    flags: Mapping[str, object],
) -> tuple[settings.Config, dict[str, str]]:
    """The settings and environment with what the repository's own files may give: the held
    settings of its .coder.conf.yml the user allows, the provider keys of its .env (where the
    environment has none, put into this process's environment, where litellm reads them), and
    the provider addresses there the user allows."""
    accepted: dict[str, object] = {}
    for name, value in settings.held_back(repo.root if repo else None, environ, flags).items():
        shown = ", ".join(value) if isinstance(value, tuple) else str(value)
        where, does = settings.CONFIG_NAME, repo_settings.HELD[name]
        if repo_settings.allowed(repo, terminal, where, name.replace("_", "-"), shown, does):
            accepted[name] = value
    dotenv = repo_settings.read_dotenv(ws.root, environ)
    for problem in dotenv.problems:
        terminal.error(f"coder: {problem}")
    taken = dict(dotenv.keys)
    for name, value in dotenv.bases.items():
        if repo_settings.allowed(
            repo, terminal, ".env", name, value, repo_settings.HELD["api_base"]
        ):
            taken[name] = value
    os.environ.update(taken)
    return dataclasses.replace(config, **accepted), {**environ, **taken}
