"""The `whole` format: the file's path alone on a line, then a fence with the entire new file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from editformats import paths
from editformats.applying import applier, implied
from editformats.edit import Edit, EditFormat, Reply, check_count
from editformats.errors import ReplyError, truncated
from editformats.formats import examples
from editformats.reading import editblock, fences, mixed

SYSTEM_PROMPT = """\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Describe the change in a sentence or two, then write out every file you change in full:

the/file/path.py
```python
the complete new content of the file, every line of it
```

Rules:
- Put the file's path, exactly as the user gave it, alone on the line above the fence.
- Write the whole file from its first line to its last. Never abbreviate with comments
  such as "... rest of code ..." or "existing code here": what you write replaces the file.
- Use a fence of four backticks when the file itself contains lines of three backticks.
- Only write files the user has added to the chat, or new files. If you need another
  file, ask for it.
"""

EXAMPLE = examples.text_reply(
    'hello.py\n```python\ndef greet(name):\n    print(f"Hello, {name}")\n\ngreet("world")\n```'
)


SYNTAX = mixed.Syntax(
    "whole", "whole file", "as the whole new file in a fence, its path alone on the line above"
)


def parse(reply: Reply) -> list[Edit]:
    """One whole-file edit per named fenced block.

    A block without a name is an edit when the line above it ends with ':' and mentions a
    file ("And `b.py`:"), or, when the reply names no file at all, if it is the one such
    block _the_file picks; shell commands and program output never are. Any other block after
    prose that mentions a file ("Here is the new version of `b.py`.") is an optional edit,
    which implied.settle keeps only if it reads as that chat file's new version. A name with
    spaces ("docs/user guide.md") is carried by such blocks as their path: it counts if that
    file exists. Fences open only at the start of a line; a fence the reply never closes means
    the reply was cut off (TruncatedReply). A block holding search/replace markers is read as
    such. A V4A patch outside the blocks read as files is a ReplyError.
    """
    lines = fences.prepare(reply.text).split("\n")
    found = fences.find_fences(lines)
    patchy = mixed.may_hold_patch(reply.text)
    edits: list[tuple[int, Edit]] = []
    unnamed_blocks: list = []
    read: list[range] = []  # the fences read as edits: whatever they hold is the file's
    lead = 0
    for k, fence in enumerate(found):
        if not fence.closed:
            raise truncated(f"the fenced block opened at line {fence.opener + 1} ({fence.marker})")
        body = lines[fence.start : fence.end]
        name = fences.filename_before(lines, fence.opener) or fences.info_filename(fence.info)
        spaced = "" if name else fences.spaced_name_before(lines, fence.opener)
        if not name and (_is_output(fence.info, body) or patchy and mixed.holds_patch(body)):
            lead = fence.end + 1
            continue  # not a file; a patch is refused below
        if not name and body and paths.looks_like_path(paths.clean(body[0])):
            name, body = paths.clean(body[0]), body[1:]
        blocks = _has_blocks(body)
        if name or blocks:
            read.append(range(fence.opener, fence.end + 1))
        if blocks:
            parsed = editblock.parse_blocks("\n".join([name, "```", *body, "```"]))
            edits.extend((fence.opener, edit) for edit in parsed)
        elif name:
            _check_markdown_fence(name, fence, lines, found[k + 1 :])
            edits.append((fence.opener, _edit(name, body, fence.opener)))
        else:
            intro = _intro(lines, fence.opener)
            unnamed = replace(_edit(spaced, body, fence.opener), language=fence.info.lower())
            if intro.endswith(":") and (named := fences.mentions(intro)):
                edits.append((fence.opener, replace(unnamed, mentions=named)))
            else:
                unnamed_blocks.append((fence, unnamed, lead))
        lead = fence.end + 1
        check_count(len(edits))
    edits += _unnamed(lines, unnamed_blocks, picking=not edits)
    check_count(len(edits))
    edits.sort(key=lambda pair: pair[0])
    if patchy:
        mixed.refuse(SYNTAX, mixed.outside(mixed.patches(lines), read), [e for _, e in edits])
    return [replace(edit, index=n) for n, (_, edit) in enumerate(edits, 1)]


def _unnamed(lines: list[str], blocks: list, picking: bool) -> list[tuple[int, Edit]]:
    """The edits of the blocks without a name or an introducing line: when picking (the reply
    names no file), the one _the_file picks, with the mentions of the paragraph above it; the
    others are optional, with the mentions of the nearest paragraph above them that has some.
    Of several blocks, each may follow its own heading: the picked one takes the nearest
    mentions too when the paragraph above it has none."""
    picked = _the_file([(fence, edit) for fence, edit, _ in blocks]) if picking and blocks else None
    edits = []
    for fence, edit, lead in blocks:
        if picked is not None and fence is picked[0]:
            mentions = fences.mentions(_paragraph_before(lines, fence.opener))
            if not mentions and len(blocks) > 1:
                mentions = fences.nearest_mentions(lines, lead, fence.opener)
            edits.append((fence.opener, replace(edit, mentions=mentions)))
            continue
        mentions = fences.nearest_mentions(lines, lead, fence.opener)
        if mentions or edit.path:
            edits.append((fence.opener, replace(edit, mentions=mentions, optional=True)))
    return edits


def _the_file(blocks: list) -> tuple:
    """Of the blocks without a name in a reply that names no file, the one that is the file:
    the only one; else the only one in a language's fence; else the last of those at least
    half as long as the longest (the file as it was, shown first, and an example's output or
    a usage line after the code are not the file)."""
    if len(blocks) == 1:
        return blocks[0]
    coded = [b for b in blocks if b[0].info.strip()]
    if len(coded) == 1:
        return coded[0]
    sizes = [b[0].end - b[0].start for b in blocks]
    return [b for b, size in zip(blocks, sizes, strict=True) if 2 * size >= max(sizes)][-1]


_MARKDOWN = (".md", ".markdown", ".mdx", ".rst", ".txt")


def _check_markdown_fence(name: str, fence, lines: list[str], later: list) -> None:
    """ReplyError when a markdown file's fence of three backticks closes where the file may
    just have its own code example: a bare fence follows soon, with no file name before it."""
    if not name.lower().endswith(_MARKDOWN) or fence.marker != "```" or not later:
        return
    following = later[0]
    if following.info or fences.filename_before(lines, following.opener):
        return
    if following.opener - fence.end <= 30:
        raise ReplyError(
            f"The block for {name} seems to end early: its fence of three backticks closes at"
            f" line {fence.end + 1}, which may be the file's own ``` line. Fence a file that"
            " holds ``` lines with four backticks (````)."
        )


_OUTPUT = frozenset(
    {"text", "txt", "output", "plaintext", "console", "pycon", "log", "shell-session", "sh-session"}
)
"""Fence languages of program output rather than files."""
_PROMPTS = ("$ ", ">>> ", "PS> ", "C:\\>", "Traceback (most recent call last)")
"""How a terminal session or a Python error's first line starts."""


def _is_output(info: str, body: list[str]) -> bool:
    """True for a block of shell commands or program output, which becomes no file unless it
    is named."""
    language = info.lower().split(":")[0]
    if language in fences.SHELL_LANGUAGES or language in _OUTPUT:
        return True
    first = next((line for line in body if line.strip()), "")
    return first.startswith(_PROMPTS)


def _intro(lines: list[str], index: int) -> str:
    """The line right above a fence (blank lines skipped), stripped."""
    for k in range(index - 1, max(-1, index - 20), -1):
        if lines[k].strip():
            return lines[k].strip()
    return ""


def _edit(name: str, body: list[str], opener: int) -> Edit:
    return Edit(
        path=name,
        original="",
        updated="".join(line + "\n" for line in body),
        whole=True,
        line=opener + 1,
    )


def _has_blocks(body: list[str]) -> bool:
    """True when a fenced block holds search/replace blocks rather than a file: markers at the
    start of their lines (indented ones are a document's examples)."""
    heads = any(line.startswith("<<<<<") and editblock.is_head(line) for line in body)
    return heads and any(line.startswith("=====") and editblock.is_divider(line) for line in body)


def _paragraph_before(lines: list[str], index: int) -> str:
    """The prose right above a fence: the lines up to the blank line before them."""
    k = index - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    end = k + 1
    while k >= 0 and lines[k].strip() and index - k < 20:
        k -= 1
    return "\n".join(lines[k + 1 : end])


def apply(edits: list[Edit], files: Mapping[str, str], tree: paths.Tree = paths.NO_TREE):
    """The edits applied once the files of the blocks the reply names only in prose, or by a
    name with spaces, are settled (implied.settle)."""
    return applier.apply(implied.settle(edits, files, tree), files, tree=tree)


FORMAT = EditFormat("whole", SYSTEM_PROMPT, EXAMPLE, parse, apply)
