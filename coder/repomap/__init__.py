"""A ranked map of the repository's symbols, fitted to a budget of tokens, sent with each
request so that the model knows the code around the chat's files."""

from coder.repomap.cache import CACHE_FILES, CACHE_NAME
from coder.repomap.mapper import RepoMap, get_repo_map

__all__ = ["CACHE_FILES", "CACHE_NAME", "RepoMap", "get_repo_map"]
