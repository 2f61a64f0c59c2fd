"""Files that steer coder or git, which a model's reply may not write unless the user named them.

coder loads `.env` and its `.coder.*` files at start-up and runs git, whose behaviour
`.gitattributes`, `.gitmodules`, `.lfsconfig`, hooks and included config files change; the
user's shell runs `.envrc` (direnv), and pre-commit runs what `.pre-commit-config.yaml` names.
Anything under `.git/` or git's own folder is refused outright (see Workspace.check and
editing.Scope); these are refused unless the user put the file in the chat by name.
"""

from __future__ import annotations

from collections.abc import Collection

_GIT_FILES = {
    ".gitattributes": "git reads it to filter and compare files",
    ".gitmodules": "git reads it to fetch submodules",
    ".lfsconfig": "git-lfs reads it to know where to send files and credentials",
    ".pre-commit-config.yaml": "git's pre-commit hook runs what it names",
    ".pre-commit-config.yml": "git's pre-commit hook runs what it names",
}


def steers(path: str, hooks: str | None = None, configs: Collection[str] = ()) -> str | None:
    """Why a repository-relative path steers coder or git, or None when it does not.

    hooks is the repository-relative folder of git's hooks (core.hooksPath), if any; configs
    are the config files git includes from the work tree.
    """
    if path in configs:
        return "git includes it into its configuration"
    base = path.rsplit("/", 1)[-1].lower()
    if base == ".env" or base.startswith(".env."):
        return "it holds settings and keys that coder and other tools load at start-up"
    if base == ".envrc":
        return "your shell runs it when you enter the folder (direnv)"
    if base.startswith(".coder."):
        return "it is coder's own configuration or history"
    if base in _GIT_FILES:
        return _GIT_FILES[base]
    if hooks and (path == hooks or path.startswith(hooks.rstrip("/") + "/")):
        return "git runs it as a hook (core.hooksPath)"
    return None
