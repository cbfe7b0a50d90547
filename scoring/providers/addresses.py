"""Which base URLs an endpoint may have.

http and https only, no credentials in the URL (a key belongs in an environment variable), no
query or fragment. Loopback and private addresses are allowed: a vLLM server on this machine or
the local network is the normal case. Link-local addresses (169.254.0.0/16, fe80::/10), which
include the cloud metadata services, and the metadata host names are refused unless the host is
listed in ``MODEL_ENDPOINT_ALLOWED_HOSTS``. An IPv6 address that embeds an IPv4 one (mapped,
compatible, NAT64, 6to4, Teredo) is judged by that IPv4 address too. The check runs when an
endpoint is saved and again before every call, on the addresses the name resolves to then.
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


NAT64_PREFIXES = (
    ipaddress.ip_network("64:ff9b::/96"),  # the well-known prefix (RFC 6052)
    ipaddress.ip_network("64:ff9b:1::/96"),  # local use (RFC 8215), IPv4 in the last 32 bits
)
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def embedded_ipv4(address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for: IPv4-mapped (``::ffff:a.b.c.d``),
    IPv4-compatible (``::a.b.c.d``, deprecated but still routed by some stacks), NAT64
    (``64:ff9b::a.b.c.d``), 6to4 (``2002:AABB:CCDD::``) and Teredo (its client address)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _IPV4_COMPATIBLE and int(address) > 1:  # not :: nor ::1
        return low
    if any(address in prefix for prefix in NAT64_PREFIXES):
        return low
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None


def _refused(address) -> bool:
    """Link-local, metadata or multicast, judged for an IPv6 address that embeds an IPv4 one by
    that IPv4 address (and by itself)."""
    for candidate in (address, embedded_ipv4(address)):
        if candidate is not None and (
            candidate.is_link_local or candidate in METADATA_ADDRESSES or candidate.is_multicast
        ):
            return True
    return False


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
