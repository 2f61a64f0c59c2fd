"""The exit statuses of `coder -m`, `coder --message-file` and `coder --apply`, as the README
documents them."""

OK = 0
"""Every edit applied (or was already in the files) and, with auto-commits, is committed."""
FAILED = 1
"""The reply could not be applied (an edit failed, it had no edits, it was cut off or wrote a
file it may not), or the model could not answer: nothing was written."""
USAGE = 2
"""A command line, setting or repository state coder cannot act on (no git identity, a merge in
progress, another coder writing): nothing was written."""
NOT_COMMITTED = 3
"""The edit is written to the files but not committed: git failed to commit it, or does not
commit those files as they stand (ignored, assume-unchanged, skip-worktree, in a nested
repository). The files named are changed on disk and uncommitted; the user's earlier version is
in the previous commit or in the copy under .git/coder/backups/ that the output names."""
PARTIAL = 4
"""Some edits still failed after the last reflection, and those that applied were kept."""
CHECKS_FAILED = 5
"""The edits applied and are committed, but a check after them (syntax, --lint-cmd,
--auto-test) still failed after the last attempt to fix it."""
INTERRUPTED = 130
"""Ctrl-C: nothing of the interrupted reply was applied (the edits already written in the turn
are committed first)."""
