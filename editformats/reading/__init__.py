"""Reading edits out of a reply: search/replace blocks, code fences and file names, function
calls, V4A patches."""
