"""Which base URLs an endpoint may have.

http and https only, no credentials in the URL (a key belongs in an environment variable), no
query or fragment. Loopback and private addresses are allowed: a vLLM server on this machine or
the local network is the normal case. Link-local addresses (169.254.0.0/16, fe80::/10), which
include the cloud metadata services, and the metadata host names are refused unless the host is
listed in ``MODEL_ENDPOINT_ALLOWED_HOSTS``. The check runs when an endpoint is saved and again
before every call, on the addresses the name resolves to then.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from threading import Lock
from urllib.parse import urlsplit

from django.conf import settings

METADATA_HOSTS = {"metadata.google.internal", "metadata", "instance-data", "metadata.azure.com"}
METADATA_ADDRESSES = {
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),
}
_CACHE_SECONDS = 60.0
_cache: dict[str, float] = {}
_lock = Lock()


class AddressRefused(ValueError):
    pass


def _refused(address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return address.is_link_local or address in METADATA_ADDRESSES or address.is_multicast


def base_url_check(url: str, *, resolve: bool = True) -> str:
    """The normalised base URL (no trailing slash), or AddressRefused saying why not."""
    url = (url or "").strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise AddressRefused("the base URL must start with http:// or https://")
    if parts.username is not None or parts.password is not None:
        raise AddressRefused(
            "the base URL must not hold credentials; name the key's environment variable instead"
        )
    if parts.query or parts.fragment:
        raise AddressRefused("the base URL takes no query or fragment")
    host = (parts.hostname or "").lower()
    if not host:
        raise AddressRefused("the base URL has no host")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise AddressRefused("the base URL has an invalid port") from None
    allowed = {h.lower() for h in settings.MODEL_ENDPOINT_ALLOWED_HOSTS}
    if host not in allowed:
        if host in METADATA_HOSTS:
            raise AddressRefused(f"{host} is a cloud metadata service; refused")
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None and _refused(literal):
            raise AddressRefused(f"{host} is a link-local or metadata address; refused")
        if resolve and literal is None:
            _check_resolved(host, parts.port or (443 if parts.scheme == "https" else 80))
    return url.rstrip("/")


def _check_resolved(host: str, port: int) -> None:
    with _lock:
        if _cache.get(host, 0.0) > time.monotonic():
            return
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise AddressRefused(f"{host} does not resolve: {exc.strerror}") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if _refused(address):
            raise AddressRefused(f"{host} resolves to {address}, a link-local address; refused")
    with _lock:
        _cache[host] = time.monotonic() + _CACHE_SECONDS
