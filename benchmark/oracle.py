"""Scripted "oracle" models that answer an exercise with its reference solution, in any edit
format: the proof that the harness counts right."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from coder.prompt import FILES_INTRO
from coder.seams.model import Completion, Request
from editformats import ToolCall


def reply_for(fmt: str, current: Mapping[str, str], wanted: Mapping[str, str]) -> Completion:
    """A reply in format fmt that turns each current file text into the wanted one."""
    if fmt == "whole-func":
        files = [{"path": p, "content": t} for p, t in wanted.items()]
        args = json.dumps({"explanation": "The solution.", "files": files})
        return Completion(tool_calls=(ToolCall("write_file", args),))
    if fmt == "diff-func":
        edits = [
            {"path": p, "original_lines": current[p], "updated_lines": t} for p, t in wanted.items()
        ]
        args = json.dumps({"explanation": "The solution.", "edits": edits})
        return Completion(tool_calls=(ToolCall("replace_lines", args),))
    if fmt in ("patch", "patch-func"):
        return _patch_reply(fmt, current, wanted)
    parts = ["Here is the solution.\n"]
    for path, text in wanted.items():
        old = current[path]
        if fmt in ("whole", "editor-whole"):
            parts.append(f"{path}\n````python\n{_ends(text)}````\n")
        elif fmt == "udiff":
            minus = "".join(f"-{line}\n" for line in old.splitlines())
            plus = "".join(f"+{line}\n" for line in text.splitlines())
            parts.append(f"```diff\n--- {path}\n+++ {path}\n@@ ... @@\n{minus}{plus}```\n")
        else:
            block = f"<<<<<<< SEARCH\n{_ends(old)}=======\n{_ends(text)}>>>>>>> REPLACE\n"
            head = f"````python\n{path}\n" if fmt.endswith("fenced") else f"{path}\n````python\n"
            parts.append(f"{head}{block}````\n")
    return Completion(text="\n".join(parts))


def _patch_reply(fmt: str, current: Mapping[str, str], wanted: Mapping[str, str]) -> Completion:
    """A V4A patch replacing each file whole: one chunk, its old lines pinned to the file's end
    (so that they match in one place only), or only added lines for an empty file."""
    sections = []
    for path, text in wanted.items():
        old = "".join(f"-{line}\n" for line in current[path].splitlines())
        new = "".join(f"+{line}\n" for line in text.splitlines())
        end = "*** End of File\n" if old else ""
        sections.append(f"*** Update File: {path}\n@@\n{old}{new}{end}")
    patch = f"*** Begin Patch\n{''.join(sections)}*** End Patch\n"
    if fmt == "patch-func":
        return Completion(tool_calls=(ToolCall("apply_patch", json.dumps({"input": patch})),))
    return Completion(text=f"Here is the solution.\n\n{patch}")


def _shown(request: Request, path: str) -> str | None:
    """The text of path as the request shows it to the model (so that a round-trip check,
    which shows the files before the edit, gets a reply against those), or None."""
    for message in reversed(request.messages):
        if not message.content.startswith(FILES_INTRO):
            continue
        match = re.search(rf"(?m)^{re.escape(path)}\n(`{{3,}})\n", message.content)
        if match is None:
            return None
        end = message.content.find(f"\n{match.group(1)}", match.end() - 1)
        return message.content[match.end() : end + 1] if end >= 0 else None
    return None


def _ends(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


class OracleModel:
    """Answers with the reference solution; with wrong_first, the first answer makes the stub
    raise on import (a few stubs pass some tests as they are), so the retry must fix it."""

    def __init__(
        self,
        fmt: str,
        read: Callable[[str], str],
        solution: Mapping[str, str],
        wrong_first: bool = False,
        name: str = "oracle",
        latency: float = 0.0,
    ):
        self.name = name
        self.fmt = fmt
        self.read = read
        self.solution = dict(solution)
        self.wrong_first = wrong_first
        self.latency = latency
        """Seconds to wait before each answer, like a model on the network."""
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, request: Request, on_text=None) -> Completion:
        """The next answer: a wrong one first when asked to, then the reference solution."""
        with self._lock:  # candidates arrive in parallel
            self.calls += 1
            first = self.calls == 1
        time.sleep(self.latency)
        current = {path: _shown(request, path) or self.read(path) for path in self.solution}
        if self.wrong_first and first:
            wrong = 'raise NotImplementedError("a wrong first attempt")\n'
            wanted = {p: _ends(t) + wrong for p, t in current.items()}
        else:
            wanted = self.solution
        completion = reply_for(self.fmt, current, wanted)
        if on_text and completion.text:
            on_text(completion.text)
        return completion


def oracle_factory(
    wrong_first: bool, latency: float = 0.0
) -> Callable[[str, Path, Mapping[str, str]], OracleModel]:
    """A factory making an oracle for one exercise's working folder and solution."""

    def make(fmt: str, workdir: Path, solution: Mapping[str, str]) -> OracleModel:
        name = "oracle-retry" if wrong_first else "oracle"
        read = lambda p: (workdir / p).read_text()  # noqa: E731
        return OracleModel(fmt, read, solution, wrong_first, name, latency)

    return make
