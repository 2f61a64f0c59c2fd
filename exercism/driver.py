"""Every language's tests but Python's: a driver run inside the sandbox (by this interpreter, a
script given with -c, importing nothing of the project and little of the standard library: it
starts its commands with posix_spawn) checks that every program of the test commands is there,
runs the language's probe (the toolchain ran at all in the sandbox), says it is ready, then
runs the test commands in turn. What fails before ready is the harness's; compile errors,
failing tests and timeouts after it are the solution's. The step that runs the tests gets a
report pipe of its own, on which the runner reports each test as it ends; the driver relays
it on the run's report between markers of its own (the tests never hold the run's report),
and a pass is counted from it (exercism/results.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from exercism import results
from sandbox import LAUNCHER_FLAGS, READY_VARIABLE, Outcome

if TYPE_CHECKING:
    from exercism.exercise import Exercise
    from exercism.language import Expected, Language, Verdict

DRIVER = f"""\
import json, os, select, sys
spec = json.loads(sys.argv[1])
ready = os.environ.pop("{READY_VARIABLE}", None)
mine = int(ready) if ready else -1
os.closerange(3, max(mine, 3))
os.closerange(max(mine, 2) + 1, os.sysconf("SC_OPEN_MAX"))
if mine >= 0:
    os.set_inheritable(mine, False)  # the tests write only through the pipes relayed below
here = os.getcwd()
env = dict(os.environ)
env.update({{k: v.replace("{{here}}", here) for k, v in spec["env"].items()}})
os.chdir(spec["cwd"])
report = spec.get("report") or {{}}


def which(name):
    if os.sep in name:
        return name if os.access(name, os.X_OK) else None
    for folder in env.get("PATH", "").split(os.pathsep):
        found = os.path.join(folder, name)
        if os.path.isfile(found) and os.access(found, os.X_OK):
            return found
    return None


def words(argv, fd=None):
    for word in argv:
        if word.startswith("glob:"):
            import glob

            yield from sorted(glob.glob(word[5:], recursive=True)) or [word[5:]]
        else:
            yield word.replace("{{here}}", here).replace("{{report}}", f"/dev/fd/{{fd}}")


def run(argv, capture=False):
    actions, said = [], bytearray()
    if capture:
        reader, writer = os.pipe()
        actions = [(os.POSIX_SPAWN_DUP2, writer, 1), (os.POSIX_SPAWN_DUP2, writer, 2)]
    pid = os.posix_spawn(which(argv[0]), argv, env, file_actions=actions)
    if capture:
        os.close(writer)
        while chunk := os.read(reader, 65536):
            said += chunk
        os.close(reader)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), bytes(said)


def tell(text):
    if mine >= 0:
        os.write(mine, text.encode(errors="replace"))


def relayed(line, state):
    # A line of the step's report pipe, as it goes on the run's own report; a line of go test
    # -json's events on its standard output becomes case lines, and its output printed.
    if not state["events"]:
        return line if not line.startswith("@@coder") else ""
    try:
        event = json.loads(line)
        action, test = event.get("Action"), event.get("Test")
    except (ValueError, AttributeError):
        os.write(1, line.encode(errors="replace") + b"\\n")
        return ""
    if action == "output":
        text = str(event.get("Output", ""))
        if not test:
            os.write(1, text.encode(errors="replace"))
        elif not text.startswith("=== "):  # RUN, PAUSE, CONT: go test prints them with -v only
            held = state["held"].setdefault(test, [])
            if len(held) < 1000:  # what a test prints is held until it ends, not without end
                held.append(text[:4096])
    elif action in ("pass", "fail", "skip") and test:
        if action == "fail":
            os.write(1, "".join(state["held"].pop(test, [])).encode(errors="replace"))
        state["held"].pop(test, None)
        return f"case {{ {{'pass': 'passed', 'fail': 'failed'}}.get(action, 'skipped') }} {{test}}"
    elif action in ("pass", "fail") and not test:
        return "done"
    return ""


def relay(argv, events):
    # The step runs with a report pipe of its own ($CODER_REPORT_FD, {{report}} its path), read
    # while it runs and told on the run's report line by line, until the step is gone.
    reader, writer = os.pipe()
    os.set_inheritable(writer, True)
    env["CODER_REPORT_FD"] = str(writer)
    readers, actions = {{reader: bytearray()}}, []
    if events:
        out_reader, out_writer = os.pipe()
        readers[out_reader] = bytearray()
        actions = [(os.POSIX_SPAWN_DUP2, out_writer, 1)]
    pid = os.posix_spawn(which(argv[0]), list(words(argv, writer)), env, file_actions=actions)
    os.close(writer)
    if events:
        os.close(out_writer)
    state = {{"events": False, "held": {{}}}}
    status, told = None, 0
    while readers:
        if status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
        ready_fds = select.select(list(readers), [], [], 0 if status is not None else 0.05)[0]
        if status is not None and not ready_fds:
            break
        for fd in ready_fds:
            chunk = os.read(fd, 65536)
            if not chunk:
                del readers[fd]
                continue
            *lines, rest = (readers[fd] + chunk).split(b"\\n")
            if len(rest) > 65536:  # a line that never ends is told in pieces
                lines, rest = [*lines, rest], b""
            readers[fd][:] = rest
            state["events"] = events and fd != reader
            for line in lines:
                said = relayed(line.decode(errors="replace")[:4096], state)
                if said and told < 1_000_000:
                    told += len(said) + 1
                    tell(said + "\\n")
    for fd in readers:
        os.close(fd)
    if status is None:
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return status


def not_ready(why):
    print(why, flush=True)
    sys.exit(125)


for argv in [spec["probe"], *spec["steps"]]:
    if argv and which(argv[0]) is None:
        not_ready(f"{{argv[0]}} is not on the tests' PATH in the sandbox: {{env.get('PATH')}}")
if spec["probe"]:
    try:
        code, said = run(list(words(spec["probe"])), capture=True)
    except OSError as exc:
        not_ready(f"{{spec['probe'][0]}} cannot run: {{exc}}")
    if code != 0:
        said = said.decode(errors="replace").strip()
        not_ready(f"{{' '.join(spec['probe'])}} failed ({{code}}): {{said[-3000:]}}")
tell("R")
sys.stdout.flush()
for index, argv in enumerate(spec["steps"]):
    tell(f"\\n@@coder step {{index}}\\n")
    try:
        if index == report.get("step"):
            code = relay(argv, report.get("events", False))
        else:
            code = run(list(words(argv)))[0]
    except OSError as exc:
        print(f"{{argv[0]}} cannot run: {{exc}}", flush=True)
        sys.exit(126)
    tell(f"\\n@@coder end {{index}} {{code}}\\n")
    if code != 0:
        sys.exit(128 - code if code < 0 else code)
"""
"""The driver; its argument is the JSON of Steps.spec(). Exit status 125 before ready."""


class Steps:
    """The runner of the languages whose tests are a probe and commands (Language.steps)."""

    def command(self, language: Language, exercise: Exercise, cache: Path) -> list[str]:
        """The driver with the language's probe, commands and environment, run with the
        launcher's flags (so that the launcher runs it in its own process)."""
        return [sys.executable, *LAUNCHER_FLAGS, "-c", DRIVER, self.spec(language, exercise, cache)]

    def spec(self, language: Language, exercise: Exercise, cache: Path) -> str:
        """What the driver runs, as JSON: {cache} filled in here, {here} inside the sandbox."""
        fill = lambda text: text.replace("{cache}", str(cache))  # noqa: E731
        env = {k: fill(v) for k, v in language.env.items()}
        report = None
        if language.report is not None:
            report = {"step": language.report_step(), "events": language.report.events}
        return json.dumps(
            {
                "cwd": exercise.name if language.nested else ".",
                "probe": [fill(w) for w in language.probe],
                "steps": [[fill(w) for w in step] for step in language.steps],
                "env": env,
                "report": report,
            }
        )

    def judge(
        self, language: Language, exercise: Exercise, folder: Path, run: Outcome, expected: Expected
    ) -> Verdict:
        """Every expected test reported passing as it ran, and exit status 0 (see
        exercism/results.py)."""
        assert language.report is not None
        found = results.read(run.stream, language.report.form, language.report_step())
        return results.count(found, expected, run.status)
