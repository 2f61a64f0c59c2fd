"""Architect mode: the main model works out the change and says it in words; the editor model
turns that plan into an edit in the chat's format (Session.turn runs the two requests). The
user sees both replies."""

from __future__ import annotations

ARCHITECT_SYSTEM = (
    "You are a senior engineer planning a change to the user's code for another engineer, who"
    " will make the edits. Read the files, work out what must change, and explain it precisely:"
    " which files, which functions or lines, and what each change is, with short code snippets"
    " where they make it unambiguous. Do not write whole files or edit blocks. If the request"
    " needs no change, say so."
)
EDITOR_REQUEST = (
    "Make the change described below, exactly and completely, as edits to the files. Change"
    " nothing else.\n\n{plan}"
)
