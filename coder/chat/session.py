"""One chat: the turn loop that reads top to bottom.

build messages -> model -> parse -> apply -> write -> commit -> reflect on failures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from coder import prompt
from coder.chat import checks, usage
from coder.chat.architect import turn as architect_turn
from coder.chat.choosing import request_candidates
from coder.chat.commit_message import write_commit_message
from coder.chat.landing import Landing, files_after, files_undone
from coder.chat.transcript import append_messages
from coder.chat.turns import SessionConfig, TurnOutcome
from coder.edits import editing, guard
from coder.edits.workspace import Workspace
from coder.errors import CoderError, GitError
from coder.repomap import RepoMap, get_repo_map
from coder.seams.model import Completion, Message, Model, Request, Usage, answered, with_ids
from coder.seams.repo import Repo
from coder.terminal import Terminal
from coder.trust import rtc, selection
from coder.trust.rtc import Change, RtcReport
from coder.trust.selection import Selection
from editformats import EditFormat, ReplyError, TruncatedReply, feedback
from editformats.errors import truncated


@dataclass
class Session:
    """The state of one chat and the turn loop that changes it."""

    model: Model
    fmt: EditFormat
    ws: Workspace
    repo: Repo | None
    terminal: Terminal
    config: SessionConfig = field(default_factory=SessionConfig)
    weak_model: Model | None = None
    editor_model: Model | None = None
    """The model that writes the edits in architect mode; None: the main model."""
    files: list[str] = field(default_factory=list)
    read_only: list[str] = field(default_factory=list)
    history: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    commits: list[str] = field(default_factory=list)
    """The commits of coder's edits in this session, oldest first: what /undo may take back.
    Never a commit of the user's own work (see saves)."""
    saves: list[str] = field(default_factory=list)
    """The commits that saved the user's own uncommitted changes before an edit: their work,
    which /undo never takes back."""
    transcript: Path | None = None
    """A markdown file to which every message of the chat is appended."""
    counts: Counter = field(default_factory=Counter)
    """Malformed replies over the session: parse_errors, apply_failures, lazy, reflections."""
    selection: Selection | None = None
    """The candidates of the last request, for /pick; cleared by the next request."""
    selections: list[Selection] = field(default_factory=list)
    """Every selection of the session, oldest first."""
    last_edit: Change | None = None
    """The request and the files before and after the last turn that changed files."""
    named: set[str] = field(default_factory=set)
    """Files the user named (on the command line, /add NAME): only these may be written when
    they steer coder or git (.env, .coder.conf.yml, hooks). The chat's first files count."""
    repo_map: RepoMap | None = field(default=None, repr=False)
    """The repository map, made at the first request that needs it (with map_tokens > 0)."""
    topic: str = ""
    """The request the map is ranked for: the user's latest, through its reflections."""
    _landing: Landing | None = field(default=None, repr=False)
    """What the request under way has written (each reflection is one request)."""
    chats: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    """For each commit of coder's edits, the chat's files before and after its request (a
    rename or a removal changes them), so that /undo can set them back."""
    _replies: int = field(default=0, repr=False)
    """Replies received, for the ids of function calls that came without one."""

    def __post_init__(self) -> None:
        self.named |= set(self.files)

    def turn(self, text: str, architect: bool | None = None) -> TurnOutcome:
        """Answer one request: ask the model, apply its edits, reflect on failures, commit;
        then check the changed files (syntax, lint command, tests) and send what fails back;
        with --rtc, then check the edit's round trip. In architect mode (the config's, unless
        architect says otherwise), the main model plans and the editor model edits."""
        if self.config.architect if architect is None else architect:
            return architect_turn(self, text)
        originals: dict[str, str | None] = {}

        def one(message: str) -> TurnOutcome:
            outcome = self._one_turn(message)
            for path, was in self._landing.before.items():
                originals.setdefault(path, was.text if was.exists else None)
            return outcome

        outcome = one(text)
        if not self.config.dry_run:
            check = lambda changed: checks.after_edit(  # noqa: E731
                self.config, self.ws, self.terminal, self.tests, changed, originals
            )
            limit = self.config.max_reflections
            outcome = checks.reflect(outcome, check, one, limit, self.terminal)
        if self.config.rtc and outcome.changed and not self.config.dry_run:
            self.round_trip()
        return outcome

    def _one_turn(self, text: str) -> TurnOutcome:
        """One request and its reflections. Interrupted after some edits were written, it
        commits them before it stops, so that nothing is left half done."""
        repo = self.repo if self.config.auto_commits else None
        self._landing = Landing(
            self.ws,
            repo,
            self.terminal,
            self.commits,
            self._commit_message,
            self.config.dry_run,
            saves=self.saves,
            chat=list(self.files),
        )
        self.topic = text
        try:
            return self._turn(text)
        except KeyboardInterrupt:
            if self._landing.before and not self.config.dry_run:
                done = self._finish(text)
                where = f" as {done.commits[0][:7]}" if done.commits else ""
                self.terminal.error(f"Interrupted: the edits already written are kept{where}.")
            raise

    def round_trip(self, with_request: bool = False) -> RtcReport:
        """The round-trip check of the last edit, shown and returned."""
        if self.last_edit is None:
            raise CoderError("there is no edit to check yet: /rtc checks the last edit coder made")
        settings = replace(self.config.rtc_settings, with_request=with_request)
        self.terminal.say(f"Round-trip check of the last edit, {settings.samples} descriptions...")
        behaviour = checks.behaviour(self.ws.root, self.tests(), self.last_edit)
        report = rtc.check(self.model, self.fmt, self.last_edit, settings, behaviour)
        self.usage += report.usage
        rtc.show(self.terminal, report)
        return report

    def _turn(self, text: str) -> TurnOutcome:
        landing = self._landing
        message = text
        self.selection = None
        for attempt in range(self.config.max_reflections + 1):
            if attempt == 0 and self.config.candidates > 1:
                completion = request_candidates(self, message)
            else:
                kind = "edit" if attempt == 0 else "reflection"
                completion = self._call(self.build(message, kind))
            self._replies += 1
            calls = with_ids(completion.tool_calls, f"coder_call_{self._replies}")
            completion = replace(completion, tool_calls=calls)
            chosen = self.selection.chosen if attempt == 0 and self.selection else None
            # A chosen candidate asked from an angle, with a plan or refined brings the request
            # as it was sent and the exchange that led to its reply.
            asked = Message("user", message)
            if chosen and chosen.asked:
                asked = chosen.asked[-1]
            exchange = chosen.exchange if chosen else ()
            self._remember(asked, *exchange, _assistant(completion))
            if completion.interrupted:
                self._answer(completion, ["Interrupted by the user: nothing was applied."])
                self.terminal.say("Interrupted: the partial reply was kept, nothing applied.")
                return TurnOutcome(interrupted=True)
            try:
                proposal = self._propose(completion, chosen.base if chosen else None)
            except ReplyError as exc:
                self._answer(completion, [f"Nothing of this reply was applied: {exc}"])
                message = feedback.next_request(completion.tool_calls, str(exc), True)
                self.counts["parse_errors"] += 1
                cut = isinstance(exc, TruncatedReply)
                self.terminal.error(
                    f"The reply was cut off; nothing of it was applied. {exc}"
                    if cut
                    else f"The reply could not be read: {exc}"
                )
                self._count_reflection(attempt)
                continue
            result = proposal.result
            if not result.applied and not result.failures:
                self._answer(completion, ["This call holds no edits."])
                if not landing.before:
                    self.counts["no_edits"] += 1
                    self.terminal.say(f"The reply has no {self.fmt.name} edits: nothing changed.")
                return self._finish(text, applied=bool(landing.before))
            written = landing.write(proposal)
            kept = written and not self.config.dry_run
            self._answer(
                completion, feedback.call_answers(result, len(completion.tool_calls), kept)
            )
            if not written:
                return TurnOutcome(failed=True)
            if kept:
                self.files = files_after(self.files, result)
            if result.ok:
                return self._finish(text, applied=True)
            failures = feedback.failure_message(result, kept=kept)
            message = feedback.next_request(completion.tool_calls, failures, result.atomic)
            self.counts["apply_failures"] += 1
            self.counts["lazy"] += sum("placeholder" in f.reason for f in result.failures)
            self.terminal.error(failures)
            self._count_reflection(attempt)
        return self._give_up(text)

    def _answer(self, completion: Completion, answers: list[str]) -> None:
        """Answer each function call of the reply (a chat API requires it before any other
        message); one answer stands for all when only one is given."""
        calls = completion.tool_calls
        if calls:
            answers = answers if len(answers) == len(calls) else answers[:1] * len(calls)
            self._remember(*answered(calls, answers))

    def _count_reflection(self, attempt: int) -> None:
        if attempt < self.config.max_reflections:
            self.counts["reflections"] += 1
            self.terminal.say("Sending the problem back to the model.")

    def ask(self, question: str) -> Completion:
        """A question about the code: no edits are parsed or applied."""
        return self.converse(question, prompt.ASK_SYSTEM, "ask")

    def converse(self, text: str, system: str, kind: str) -> Completion:
        """A request answered in words under its own system prompt, remembered in the history;
        nothing is parsed or applied. When the history holds function calls, the tool is still
        declared (some APIs require it) but not callable."""
        self.topic = text
        messages = self._messages(text, instead=system)
        calls = self.fmt.tool and any(m.tool_calls for m in messages)
        request = (
            Request(messages, tools=(self.fmt.tool,), tool_choice="none", kind=kind)
            if calls
            else Request(messages, kind=kind)
        )
        completion = self._call(request)
        completion = replace(completion, tool_calls=())
        self._remember(Message("user", text), _assistant(completion))
        return completion

    @contextmanager
    def using(self, model: Model) -> Iterator[None]:
        """Within the block, requests go to model (the architect's editor, say)."""
        main, self.model = self.model, model
        try:
            yield
        finally:
            self.model = main

    def build(self, message: str, kind: str = "edit") -> Request:
        """The request for message: the history, the files, the map, and the format's tool."""
        tools = (self.fmt.tool,) if self.fmt.tool else ()
        return Request(self._messages(message), tools=tools, kind=kind)

    def _messages(self, text: str, instead: str | None = None) -> tuple[Message, ...]:
        """The messages of a request for text: the edit format's (with the consistency prompt
        when asked for), or instead's system prompt; the history kept to half the model's
        context window (in characters, about four a token) when the model says how large."""
        files, read_only = self.contents()
        window = getattr(self.model, "context_window", lambda: None)()
        budget = {"history_budget": 2 * window} if window else {}
        consistent = self.config.consistency_prompt and instead is None
        the_map = self.map_text()
        return prompt.build(
            self.fmt,
            files,
            read_only,
            self.history,
            text,
            consistent,
            instead,
            repo_map=the_map,
            **budget,
        )

    def map_text(self) -> str:
        """The repository map for the next request: "" when map_tokens is 0 (then nothing is
        parsed) or when no file outside the chat defines anything. The map is context, not the
        request: when git cannot list the files, the request goes without it, and says so."""
        if self.config.map_tokens <= 0:
            return ""
        if self.repo_map is None:
            budget, say = self.config.map_tokens, self.terminal.say
            self.repo_map = get_repo_map(self.ws, self.repo, budget, on_status=say)
        try:
            return self.repo_map.text([*self.files, *self.read_only], self.topic)
        except GitError as exc:
            self.terminal.error(f"The repository map is left out of this request: {exc}")
            return ""

    def tests(self) -> selection.TestSetup | None:
        """How the test command runs on versions of the files; None without one."""
        return checks.test_setup(self.config, self.ws, self.repo)

    def _call(self, request: Request) -> Completion:
        self.terminal.start_reply()
        try:
            on_text = self.terminal.stream if self.config.stream else None
            completion = self.model.complete(request, on_text=on_text)
            if not self.config.stream:
                self.terminal.stream(completion.text)
        finally:
            self.terminal.end_reply()
        self.usage += completion.usage
        self.terminal.say(usage.reply_line(completion.usage, self.usage))
        return completion

    def history_note(self, text: str) -> None:
        """Put text (a command's output, say) into the conversation for the next request."""
        self._remember(Message("user", text), Message("assistant", "Ok."))

    def _remember(self, *messages: Message) -> None:
        """Add messages to the history, and to the transcript file when there is one."""
        self.history += messages
        if self.transcript is not None:
            append_messages(self.transcript, messages)

    def contents(self) -> tuple[dict[str, str], dict[str, str]]:
        """The chat files as they are on disk now: re-read every turn."""
        files = {p: self.ws.read(p).text for p in self.files}
        read_only = {p: self.ws.read_reference(p).text for p in self.read_only}
        return files, read_only

    def _propose(
        self, completion: Completion, base: Mapping[str, str] | None = None
    ) -> editing.Proposal:
        """Apply the reply in memory (on base, for a refinement: the files as the candidate it
        corrects left them); the user decides about files outside the chat and files that
        steer coder. A reply cut off at the model's length limit applies nothing."""
        if completion.truncated:
            raise truncated("a reply the model stopped at its length limit")
        scope = guard.scope_of(self.ws, self.repo, self.named)
        proposal, added, scope = editing.propose_asking(
            self.fmt, completion.reply, self.ws, self.files, scope, self.terminal, base
        )
        self.files += [p for p in added if p not in self.files]
        self.named |= scope.named
        return proposal

    def _finish(self, request: str, applied: bool = False) -> TurnOutcome:
        """Commit what the request changed, kept as the last edit for /rtc."""
        self.last_edit = self._landing.change(request, self.files) or self.last_edit
        outcome = self._landing.finish(applied)
        for sha in outcome.commits:
            self.chats[sha] = (self._landing.chat, list(self.files))
        return outcome

    def undone(self, sha: str) -> None:
        """The chat's files as they were before the request of commit sha, which /undo took
        back: the files it renamed or removed are in the chat again, their new names gone."""
        if sha in self.chats:
            before, after = self.chats.pop(sha)
            self.files = files_undone(self.files, before, after, self.ws)

    def _give_up(self, request: str) -> TurnOutcome:
        """Edits still fail: the user decides whether the ones that applied are kept, and is
        told in one line how the request ended."""
        tries = self.config.max_reflections + 1
        gave_up = f"coder gave up after {tries} {'reply' if tries == 1 else 'replies'}"
        if self._landing.before and not self.config.dry_run:
            if self.terminal.confirm("Some edits failed. Keep the edits that did apply?"):
                outcome = replace(self._finish(request), failed=True)
                kept = ", ".join(outcome.changed) or "none"
                self.terminal.error(f"{gave_up}: some edits still fail; changed files: {kept}.")
                return outcome
            self._landing.undo()
            self.files = files_undone(self.files, self._landing.chat, self.files, self.ws)
        self.terminal.error(f"{gave_up}: the edits still fail, and no file changed.")
        return TurnOutcome(failed=True)

    def _commit_message(self, changed: tuple[str, ...]) -> str:
        message, used = write_commit_message(
            self.weak_model or self.model, self.repo, list(changed)
        )
        self.usage += used
        return message


def _assistant(completion: Completion) -> Message:
    return Message("assistant", completion.text, completion.tool_calls)
