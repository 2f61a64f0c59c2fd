"""The patch formats beyond the golden cases: what parsing yields, the data of deletions and
moves, the messages the model gets (pinned whole), the per-model defaults, and the bounds."""

from __future__ import annotations

import json

import pytest

from editformats import ApplyResult, Failure, Reply, ReplyError, ToolCall, feedback, get_format
from editformats.applying import chunks, misses, seeking
from editformats.applying.filetext import FileText
from editformats.edit import Chunk, Edit
from editformats.paths import tree_of
from editformats.reading import v4a
from editformats.registry import MODEL_FORMATS, format_for

PATCH = get_format("patch")
FUNC = get_format("patch-func")


def patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def test_prose_without_a_patch_holds_no_edits() -> None:
    assert PATCH.parse(Reply("I need to see utils.py first: please add it.")) == []


def test_sections_become_one_edit_each_numbered_through_the_reply() -> None:
    text = patch(
        "*** Add File: a.txt\n+x\n",
        "*** Delete File: b.txt\n",
        "*** Update File: c.txt\n*** Move to: d.txt\n@@ class A\n@@ def f\n x\n-y\n+z\n",
    )
    text += "\n" + patch("*** Update File: e.txt\n@@\n-1\n+2\n*** End of File\n")
    add, delete, update, last = v4a.parse(text)
    assert (add.path, add.updated, add.new_file) == ("a.txt", "x\n", True)
    assert (add.index, add.line) == (1, 2)
    assert (delete.path, delete.delete, delete.index) == ("b.txt", True, 2)
    assert (update.path, update.move_to, update.index) == ("c.txt", "d.txt", 3)
    assert update.chunks == (Chunk((" x", "-y", "+z"), ("class A", "def f"), False, 7),)
    assert last.index == 4 and last.chunks[0].at_end and last.chunks[0].line == 16


def test_a_patch_func_call_numbers_its_edits_after_the_earlier_calls() -> None:
    calls = tuple(
        ToolCall("apply_patch", json.dumps({"input": patch(f"*** Delete File: {n}.txt\n")}))
        for n in "ab"
    )
    first, second = FUNC.parse(Reply(tool_calls=calls))
    assert (first.index, first.call, second.index, second.call) == (1, 0, 2, 1)


def test_a_delete_and_a_move_are_data_of_the_result() -> None:
    files = {"a.txt": "a\n", "b.txt": "b\n", "keep.txt": "k\n"}
    text = patch("*** Delete File: a.txt\n", "*** Update File: b.txt\n*** Move to: c/b.txt\n")
    result = PATCH.apply(PATCH.parse(Reply(text)), files)
    assert result.ok and result.atomic
    assert dict(result.files) == {"c/b.txt": "b\n"}
    assert result.deleted == ("a.txt", "b.txt")
    assert dict(result.moved) == {"b.txt": "c/b.txt"}
    assert result.changed == ("a.txt", "b.txt", "c/b.txt")
    assert [a.how for a in result.applied] == ["deleted", "moved"]


def test_a_file_moved_twice_is_one_move_and_an_added_file_moved_is_no_move() -> None:
    text = patch(
        "*** Update File: a.txt\n*** Move to: b.txt\n",
        "*** Update File: b.txt\n*** Move to: c.txt\n",
        "*** Add File: new.txt\n+n\n",
        "*** Update File: new.txt\n*** Move to: newer.txt\n",
    )
    result = PATCH.apply(PATCH.parse(Reply(text)), {"a.txt": "a\n"})
    assert dict(result.moved) == {"a.txt": "c.txt"}
    assert dict(result.files) == {"c.txt": "a\n", "newer.txt": "n\n"}
    assert result.deleted == ("a.txt",)


def test_an_empty_chat_file_that_does_not_exist_yet_can_be_added() -> None:
    # coder gives a chat file that does not exist yet as "": adding it loses nothing.
    edits = PATCH.parse(Reply(patch("*** Add File: new.py\n+x = 1\n")))
    result = PATCH.apply(edits, {"new.py": ""})
    assert result.ok and dict(result.files) == {"new.py": "x = 1\n"}


def test_loose_matches_are_reported() -> None:
    text = patch("*** Update File: a.py\n@@\n x = 1\n-y = 2\n+y = 3\n")
    result = PATCH.apply(PATCH.parse(Reply(text)), {"a.py": "    x = 1\n    y = 2\n"})
    (applied,) = result.applied
    assert applied.how == "indentation"
    assert applied.note == "chunk 1 matched with surrounding whitespace ignored"
    assert result.files["a.py"] == "    x = 1\ny = 3\n"


NOT_FOUND = """\
*** Update File: calc.py (line 2 of your reply), chunk 1 (line 3): these lines of it match no \
lines of calc.py:
```
 def sub(x, y):
-    return x - y
```
The nearest lines of calc.py, numbered (the numbers are not part of the file):
```
4 | def sub(a, b):
5 |     return a - b
```

Copy the lines to find exactly from the file as it is now, whitespace included.

Nothing of your patch was applied: it applies whole or not at all. Send the whole patch again, \
every file operation in it, with the failures above fixed."""


def test_the_not_found_message_whole() -> None:
    files = {"calc.py": "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n"}
    text = patch("*** Update File: calc.py\n@@\n def sub(x, y):\n-    return x - y\n+    pass\n")
    result = PATCH.apply(PATCH.parse(Reply(text)), files)
    assert feedback.failure_message(result, kept=False) == NOT_FOUND


def test_the_ambiguity_message_whole() -> None:
    edit = Edit("r.py", "", "", index=1, line=2)
    miss = chunks.ChunkMiss(1, Chunk(("-x",), line=3), "ambiguous", 4, places=(5, 9, 30))
    assert misses.chunk(edit, "r.py", miss, [], range(0)) == (
        "*** Update File: r.py (line 2 of your reply), chunk 1 (line 3): its lines match 3"
        " places in r.py below line 4, starting at lines 6, 10 and 31. Put an @@ line naming"
        " the class or function the change is in above the chunk (the first match below that"
        " line is changed), or add context lines until the chunk matches one place only."
    )


def test_the_file_operation_messages_whole() -> None:
    add = Edit("a.txt", "", "x\n", new_file=True, line=4)
    delete = Edit("d.txt", "", "", delete=True, line=5)
    update = Edit("u.txt", "", "", line=6, move_to="v.txt")
    assert misses.exists(add, "a.txt", shown=False) == (
        "*** Add File: a.txt (line 4 of your reply): a.txt exists already (you have not seen it),"
        " and a patch never adds a file over another. To change it, use *** Update File: a.txt;"
        " to replace it whole, *** Delete File: a.txt and then *** Add File: a.txt."
    )
    assert misses.missing(delete, "d.txt", gone_here=False) == (
        "*** Delete File: d.txt (line 5 of your reply): there is no file d.txt."
    )
    assert misses.missing(update, "u.txt", gone_here=True) == (
        "*** Update File: u.txt (line 6 of your reply): there is no file u.txt (this patch"
        " deleted or moved it above). To create it, use *** Add File: u.txt with every line led"
        " by '+'."
    )
    assert misses.not_shown(delete, "d.txt") == (
        "*** Delete File: d.txt (line 5 of your reply): d.txt is not one of the files in the"
        " chat, so you have not seen its content and it is not changed. Ask the user to add it"
        " to the chat first."
    )
    assert misses.move_onto(update, "v.txt", onto_itself=False) == (
        "*** Update File: u.txt (line 6 of your reply): *** Move to: v.txt would overwrite"
        " v.txt, which exists; a move never overwrites a file. Choose another name, or delete"
        " that file first."
    )


def test_an_ambiguous_chunk_lists_at_most_a_hundred_places() -> None:
    files = {"many.txt": "x\n" * 250}
    result = PATCH.apply(PATCH.parse(Reply(patch("*** Update File: many.txt\n@@\n-x\n"))), files)
    (failure,) = result.failures
    assert "match 100+ places" in failure.reason and "100 and more" in failure.reason


def test_the_search_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seeking, "MAX_WORK", 1000)
    files = {"big.txt": "a\n" * 2000}
    text = patch("*** Update File: big.txt\n@@\n a\n-a\n+b\n")
    result = PATCH.apply(PATCH.parse(Reply(text)), files)
    (failure,) = result.failures
    assert failure.kind == "budget" and "was not tried" in failure.reason


def test_later_operations_on_a_file_whose_operation_failed_are_not_tried() -> None:
    text = patch("*** Update File: a.txt\n@@\n-nope\n+x\n", "*** Update File: a.txt\n@@\n-a\n+b\n")
    result = PATCH.apply(PATCH.parse(Reply(text)), {"a.txt": "a\n"})
    assert len(result.failures) == 1 and not result.files


def test_a_file_of_the_repository_not_in_the_chat_exists_for_add_and_move() -> None:
    tree = tree_of(["a.txt", "lib/b.txt"])
    text = patch("*** Update File: a.txt\n*** Move to: lib/b.txt\n")
    result = PATCH.apply(PATCH.parse(Reply(text)), {"a.txt": "a\n"}, tree=tree)
    assert "would overwrite lib/b.txt" in result.failures[0].reason


def test_function_call_answers_say_a_clean_call_was_not_applied_either() -> None:
    bad = Edit("b.txt", "", "", call=1, index=2)
    result = ApplyResult(failures=(Failure(bad, "it failed", kind="not-found"),), atomic=True)
    first, second = feedback.call_answers(result, 2, kept=False)
    assert first == (
        "Not applied: an edit of another call of this reply failed, and the reply's edits apply"
        " all or none."
    )
    assert second.startswith("Failed.\n\nit failed") and feedback.ATOMIC in second
    calls = (ToolCall("apply_patch", "{}", "c1"),)
    assert feedback.next_request(calls, "x", nothing_applied=True) == (
        "Your edits could not be used: the answers to your calls above say why, and nothing of"
        " the reply was applied. Call apply_patch again with all of them, fixed."
    )


def test_file_text_keeps_each_lines_ending_and_the_missing_final_newline() -> None:
    text = FileText.of("\ufeffa\r\nb\nc")
    assert (text.lines, text.ends, text.bom) == (["a", "b", "c"], ["\r\n", "\n", ""], "\ufeff")
    assert text.text() == "\ufeffa\r\nb\nc"
    assert text.replaced([(3, 3, ["d"], ["\r\n"])]).text() == "\ufeffa\r\nb\nc\r\nd"
    assert FileText.of("").replaced([(0, 0, ["x"], ["\n"])]).text() == "x\n"


@pytest.mark.parametrize(
    ("model", "fmt"),
    [
        ("gpt-4.1", "patch"),
        ("openai/gpt-4.1-mini", "patch"),
        ("gpt-5", "patch"),
        ("gpt-5-codex", "patch"),
        ("codex-mini-latest", "patch"),
        ("o3", "patch"),
        ("openai/o4-mini", "patch"),
        ("azure/o1", "patch"),
        ("gpt-4o", "diff"),
        ("claude-sonnet-4-5", "diff"),
        ("openai/my-model", "diff"),
        ("gemini/gemini-2.5-pro", "diff"),
    ],
)
def test_the_default_format_of_a_model(model: str, fmt: str) -> None:
    assert format_for(model) == fmt


def test_every_default_names_a_registered_format() -> None:
    for row in MODEL_FORMATS:
        assert get_format(row.format).name == row.format


def test_a_patch_func_call_without_a_patch_is_refused() -> None:
    with pytest.raises(ReplyError, match="'input' must be a string"):
        FUNC.parse(Reply(json.dumps({"input": ["*** Begin Patch"]})))


def test_the_conformance_map_names_existing_cases() -> None:
    import re
    from pathlib import Path

    folder = Path(__file__).parent / "cases" / "patch"
    named = set(re.findall(r"`([a-z0-9-]+)`", (folder / "CONFORMANCE.md").read_text()))
    named -= {"patch", "apply_patch"}
    cases = {p.name for p in folder.iterdir() if (p / "reply.md").is_file()}
    assert named and named <= cases, sorted(named - cases)


def test_the_prompts_worked_example_is_a_patch_of_every_operation() -> None:
    from editformats.formats.patch import GUIDE

    update, add, delete, move = v4a.parse(GUIDE)
    assert (add.new_file, delete.delete, len(update.chunks), move.move_to) == (
        True,
        True,
        1,
        "notes/done.md",
    )
    assert update.chunks[0].anchors == ("class Cart", "    def total(self):")


@pytest.mark.parametrize("name", ["patch", "patch-func"])
def test_the_example_reply_makes_the_same_file_as_the_whole_formats(name: str) -> None:
    from editformats.formats import examples

    hello = examples.REQUEST.content.split("```python\n")[1].split("```")[0]
    whole = get_format("whole")
    want = whole.apply(whole.parse(Reply(whole.example_messages[1].content)), {"hello.py": ""})
    fmt = get_format(name)
    answer = fmt.example_messages[1]
    result = fmt.apply(fmt.parse(Reply(answer.content, answer.tool_calls)), {"hello.py": hello})
    assert result.ok and result.files["hello.py"] == want.files["hello.py"]
