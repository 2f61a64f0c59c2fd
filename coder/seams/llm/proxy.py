"""Which proxy the direct route goes through, from the variables curl and httpx read:
`https_proxy` for https:// URLs, `http_proxy` for http:// ones, `all_proxy` for both (each in
lower case first, then upper case), all but the hosts `no_proxy` names. An https:// URL goes
through an http:// proxy in a CONNECT tunnel; a proxy spoken to otherwise (https://, SOCKS) is
left to litellm.
"""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from coder.errors import UsageError


@dataclass(frozen=True)
class Proxy:
    """An http:// proxy."""

    host: str
    port: int
    authorization: str | None = None
    """The Proxy-Authorization header for the user and password of its URL."""

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


class Unsupported(Exception):
    """A proxy the direct route does not speak to; the message says which."""


def for_url(url: str, environ: Mapping[str, str]) -> Proxy | None:
    """The proxy requests to url go through (None: straight to it). Unsupported for a proxy
    that is not http://; UsageError for one whose port is not a number."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    chosen = _variable(environ, f"{scheme}_proxy") or _variable(environ, "all_proxy")
    if not chosen or _bypassed(parts.hostname or "", parts.port, _variable(environ, "no_proxy")):
        return None
    if "://" not in chosen:
        chosen = "http://" + chosen  # curl's default for a proxy without a scheme
    proxy = urlsplit(chosen)
    if proxy.scheme.lower() != "http" or not proxy.hostname:
        raise Unsupported(f"the proxy {proxy.scheme}://{proxy.hostname or ''} is not http://")
    try:
        port = proxy.port or 1080  # curl's default proxy port
    except ValueError:
        raise UsageError(f"the proxy {chosen!r} has a port that is not a number") from None
    authorization = None
    if proxy.username is not None:
        pair = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode()).decode()
    return Proxy(proxy.hostname, port, authorization)


def _variable(environ: Mapping[str, str], name: str) -> str:
    return (environ.get(name) or environ.get(name.upper()) or "").strip()


def _bypassed(host: str, port: int | None, no_proxy: str) -> bool:
    """Whether no_proxy (comma-separated: `*`, names and their subdomains with or without a
    leading dot, IP addresses, CIDR ranges, each with an optional port) names host."""
    host = host.lower().rstrip(".")
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        name, wanted = _split_port(entry)
        if wanted is not None and port is not None and wanted != port:
            continue
        if _address_in(host, name):
            return True
        name = name.lstrip(".").rstrip(".")
        if name and (host == name or host.endswith("." + name)):
            return True
    return False


def _split_port(entry: str) -> tuple[str, int | None]:
    if entry.startswith("["):  # [::1]:8080
        address, _, rest = entry[1:].partition("]")
        return address, int(rest[1:]) if rest[1:].isdigit() else None
    name, colon, port = entry.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        return name, int(port)
    return entry, None


def _address_in(host: str, entry: str) -> bool:
    try:
        address = ipaddress.ip_address(host.strip("[]"))
        return address in ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return False
