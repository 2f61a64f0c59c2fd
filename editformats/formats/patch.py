"""The `patch` format: OpenAI's V4A patch, the input of Codex CLI's apply_patch tool, which
GPT-4.1 and later models, the o-series and the Codex models are trained to write. Applied
exactly, atomically and strictly (see applying/patching.py)."""

from __future__ import annotations

from editformats.applying import patching
from editformats.edit import Edit, EditFormat, Reply
from editformats.formats import examples
from editformats.reading import envelopes, fences, mixed, v4a

GUIDE = """\
*** Begin Patch
*** Update File: shop/cart.py
@@ class Cart
@@     def total(self):
         subtotal = sum(item.price for item in self.items)
-        return subtotal
+        return round(subtotal * (1 - self.discount), 2)
*** Add File: shop/discounts.py
+STUDENT = 0.1
+
+SENIOR = 0.15
*** Delete File: shop/old_prices.py
*** Update File: notes/todo.md
*** Move to: notes/done.md
@@
-- [ ] apply discounts at checkout
+- [x] apply discounts at checkout
*** End Patch

How to write it:
- Start with "*** Begin Patch" and end with "*** End Patch", each alone on its line, and send
  the whole change as one patch.
- One section per file, its path relative to the repository, as the user gave it:
  "*** Add File: PATH" followed by the new file's lines, each led by "+";
  "*** Delete File: PATH" alone;
  "*** Update File: PATH", optionally followed by "*** Move to: NEW_PATH" to rename the file,
  then its chunks.
- A chunk starts with an "@@" line. Each of its lines is led by " " (a line kept as it is),
  "-" (a line removed) or "+" (a line added). Copy kept and removed lines exactly from the
  file, and keep about three unchanged lines above and below each change.
- The kept and removed lines of a chunk must match one place in the file only. Where they
  could match several, name the class or function the change is in after the @@, as in
  "@@ def total(self):"; stack @@ lines to go deeper. The chunk is then looked for below the
  lines they name.
- Write the chunks of a file in the order they appear in it. A chunk whose last line is the
  file's last line may end with "*** End of File".
- Never write placeholders such as "... rest of code ...": every line you remove is gone.
- Only change, move or delete files in the chat. A patch never writes over an existing file:
  to replace one whole, delete it and add it again.
"""

SYSTEM_PROMPT = f"""\
You are an expert programmer who edits the user's files. Keep to what the user asks.
Describe the change in a sentence or two, then write it as a patch in the V4A format of the
apply_patch tool. This one changes a method, adds a file, deletes one, and renames and edits
another:

{GUIDE}"""

EXAMPLE = examples.text_reply(
    "*** Begin Patch\n*** Update File: hello.py\n@@\n-def greet():\n"
    '-    print("Hello, world")\n+def greet(name):\n+    print(f"Hello, {name}")\n \n'
    '-greet()\n+greet("world")\n*** End of File\n*** End Patch'
)


SYNTAX = mixed.Syntax(
    "patch",
    "patch section",
    "as a section of one V4A patch (*** Update File: PATH and its chunks to change a file,"
    " *** Add File: PATH to create one)",
)


def parse(reply: Reply) -> list[Edit]:
    """The file operations of every patch in the reply, wherever it stands; ReplyError when
    search/replace blocks or whole files stand outside the patches besides."""
    edits = v4a.parse(reply.text)
    if mixed.may_hold_others(reply.text):
        lines = fences.prepare(reply.text).split("\n")
        mixed.refuse(SYNTAX, mixed.beside_patch(lines, envelopes.envelopes(lines)), edits)
    return edits


FORMAT = EditFormat("patch", SYSTEM_PROMPT, EXAMPLE, parse, patching.apply)
