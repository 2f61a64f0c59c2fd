"""The files and folders that run something, or are read as settings, without anyone choosing to
run the project's code: by coder, git and its hook managers, the shell, editors, version and
package managers, and CI. A row each, with why; steering.py decides with them.

Names are compared without regard to case (a case-insensitive file system makes `.ENVRC`
the same file as `.envrc`), wherever in the work tree the file lies (a project in a
subfolder has its own); a folder's rule covers everything below it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One kind of file that steers a tool."""

    pattern: str
    """A file name, a path ending in a file name (".cargo/config.toml"), or a folder (ending
    with "/": everything below it)."""
    why: str
    """What the file does, read after "which" ("lefthook.yml, which ...")."""
    prefix: bool = False
    """The pattern is the start of the name (".env." matches .env.local)."""


RULES: tuple[Rule, ...] = (
    # coder
    Rule(".env", "holds settings and keys that coder and other tools load at start-up"),
    Rule(".env.", "holds settings and keys that coder and other tools load at start-up", True),
    Rule(".coder.", "is coder's own configuration or history", True),
    # git
    Rule(".gitattributes", "git reads to filter and compare files"),
    Rule(".gitmodules", "git reads to fetch submodules"),
    Rule(".lfsconfig", "git-lfs reads to know where to send files and credentials"),
    # git hook managers
    Rule(".pre-commit-config.yaml", "tells git's pre-commit hook what to run"),
    Rule(".pre-commit-config.yml", "tells git's pre-commit hook what to run"),
    Rule(".husky/", "holds the hooks husky has git run"),
    Rule(".githooks/", "holds git hooks (core.hooksPath commonly names it)"),
    Rule("lefthook.yml", "tells lefthook what git's hooks run"),
    Rule("lefthook.yaml", "tells lefthook what git's hooks run"),
    Rule("lefthook.json", "tells lefthook what git's hooks run"),
    Rule("lefthook.toml", "tells lefthook what git's hooks run"),
    Rule(".lefthook.yml", "tells lefthook what git's hooks run"),
    Rule(".lefthook.yaml", "tells lefthook what git's hooks run"),
    Rule("lefthook-local.yml", "tells lefthook what git's hooks run"),
    Rule("lefthook-local.yaml", "tells lefthook what git's hooks run"),
    Rule(".lefthook-local.yml", "tells lefthook what git's hooks run"),
    Rule(".lefthook-local.yaml", "tells lefthook what git's hooks run"),
    Rule(".lefthook/", "holds the scripts lefthook's hooks run"),
    Rule(".overcommit.yml", "tells overcommit what git's hooks run"),
    Rule(".simple-git-hooks.json", "tells simple-git-hooks what git's hooks run"),
    Rule(".simple-git-hooks.js", "tells simple-git-hooks what git's hooks run"),
    Rule(".simple-git-hooks.cjs", "tells simple-git-hooks what git's hooks run"),
    Rule("simple-git-hooks.json", "tells simple-git-hooks what git's hooks run"),
    Rule("simple-git-hooks.js", "tells simple-git-hooks what git's hooks run"),
    Rule("simple-git-hooks.cjs", "tells simple-git-hooks what git's hooks run"),
    # the shell and tool-version managers, which run on entering the folder
    Rule(".envrc", "your shell runs when you enter its folder (direnv)"),
    Rule(".mise.toml", "mise reads when you enter its folder (its hooks and tasks run)"),
    Rule("mise.toml", "mise reads when you enter its folder (its hooks and tasks run)"),
    Rule(".mise.local.toml", "mise reads when you enter its folder (its hooks and tasks run)"),
    Rule("mise.local.toml", "mise reads when you enter its folder (its hooks and tasks run)"),
    Rule(".mise/", "mise reads when you enter its folder (its hooks and tasks run)"),
    Rule(".config/mise/", "mise reads when you enter its folder (its hooks and tasks run)"),
    Rule(".tool-versions", "asdf and mise read to install and choose programs"),
    # editors, which run tasks and read interpreters and settings on opening the folder
    Rule(".vscode/", "your editor reads as settings and tasks, some run on opening the folder"),
    Rule(".idea/", "your editor reads as settings and run configurations"),
    Rule(".devcontainer/", "your editor runs when it opens the folder in a container"),
    Rule(".devcontainer.json", "your editor runs when it opens the folder in a container"),
    Rule(".zed/", "your editor reads as settings and tasks"),
    Rule(".helix/", "your editor reads as settings and language servers to run"),
    Rule(".nvim.lua", "Neovim runs when it opens the folder (exrc)"),
    Rule(".nvimrc", "Neovim runs when it opens the folder (exrc)"),
    Rule(".exrc", "vi and Neovim run when they open the folder (exrc)"),
    # package managers, whose settings name registries, credentials and programs they run
    Rule(".npmrc", "npm reads for its registry, credentials and scripts' settings"),
    Rule(".yarnrc", "yarn reads for its registry and the program it runs"),
    Rule(".yarnrc.yml", "yarn reads for its registry and the program it runs (yarnPath)"),
    Rule(".pnpmfile.cjs", "pnpm runs at every install"),
    Rule(".cargo/config", "cargo reads for the programs it runs (a rustc wrapper, runners)"),
    Rule(".cargo/config.toml", "cargo reads for the programs it runs (a rustc wrapper, runners)"),
    Rule("pip.conf", "pip reads for the index it downloads from and its credentials"),
    # CI, which runs with the repository's secrets once pushed
    Rule(".github/workflows/", "your CI runs, with the repository's secrets"),
    Rule(".github/actions/", "your CI runs, with the repository's secrets"),
    Rule(".gitlab-ci.yml", "your CI runs, with the repository's secrets"),
    Rule(".circleci/", "your CI runs, with the repository's secrets"),
    Rule(".buildkite/", "your CI runs, with the repository's secrets"),
    Rule("Jenkinsfile", "your CI runs, with the repository's secrets"),
)


HOME: tuple[Rule, ...] = (
    Rule(".gitconfig", "git reads as your own settings"),
    Rule(".config/git/", "git reads as your own settings"),
    Rule(".ssh/", "holds your SSH keys and the hosts and commands ssh uses"),
    Rule(".bashrc", "your shell runs at start"),
    Rule(".bash_profile", "your shell runs at start"),
    Rule(".bash_login", "your shell runs at start"),
    Rule(".profile", "your shell runs at start"),
    Rule(".zshrc", "your shell runs at start"),
    Rule(".zshenv", "your shell runs at start"),
    Rule(".zprofile", "your shell runs at start"),
    Rule(".config/fish/", "your shell runs at start"),
    Rule(".coder.conf.yml", "is your own coder configuration"),
    Rule(".config/", "your programs read as your own settings"),
    Rule(".local/bin/", "holds programs on your PATH"),
    Rule("bin/", "holds programs on your PATH"),
)
"""Paths from the home folder, guarded when the work tree holds it (a dotfiles repository)."""


def match(rule: Rule, path: str) -> bool:
    """Whether a path ("/"-separated, from the top of the work tree) falls under rule, wherever
    in the tree the file or folder lies."""
    path, pattern = "/" + path.lower(), rule.pattern.lower()
    if pattern.endswith("/"):
        return f"/{pattern}" in path
    if "/" in pattern:
        return path.endswith(f"/{pattern}")
    base = path.rsplit("/", 1)[-1]
    return base.startswith(pattern) if rule.prefix else base == pattern


def match_from_top(rule: Rule, path: str) -> bool:
    """Whether a path from the top of a folder falls under rule there (not deeper)."""
    path, pattern = path.lower(), rule.pattern.lower()
    return path.startswith(pattern) if pattern.endswith("/") else path == pattern
