"""Where a webhook may be sent.

Two checks. At registration (``validate_webhook_url``, a validator of ``WebhookEndpoint.url``,
so the admin form and ``full_clean`` run it): https only (http when ``WEBHOOK_ALLOW_HTTP``),
no user name or password in the URL, and a host that is a public name or a public address,
not ``localhost``, a single-label name, an ``.internal``/``.local``-style name or a wildcard
DNS service that answers with any address written in the name (``10.0.0.1.nip.io``).

Before every delivery (``vet``), because a partner controls its own DNS: the host is resolved
and the delivery is refused when *any* address it resolves to is loopback, private,
link-local, multicast, reserved or unspecified (IPv4 and IPv6, with the IPv4 address inside
an IPv4-mapped, 6to4 or NAT64 IPv6 address checked too). The sender then connects to the
addresses vetted here, never resolving the name again, so a DNS answer that changes between
the check and the connection (rebinding) cannot move the delivery inside the network.

``WEBHOOK_ALLOWED_PRIVATE_HOSTS`` lets chosen private receivers through: each entry a host
name (as written in the URL) or an address or network (``10.1.2.0/24``, ``127.0.0.1``).
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Names that only mean something inside a network.
INTERNAL_SUFFIXES = ("localhost", "local", "localdomain", "internal", "intranet", "lan", "home.arpa", "corp")
# Public wildcard DNS services: <any address>.nip.io resolves to that address.
WILDCARD_DNS = ("nip.io", "sslip.io", "xip.io", "localtest.me", "lvh.me", "vcap.me", "traefik.me", "local.gd")
NAT64 = ipaddress.ip_network("64:ff9b::/96")

# What a refused delivery records: the same few words whatever the address or the error.
REFUSED_PRIVATE = "refused: private address"
REFUSED_SCHEME = "refused: not https"
REFUSED_URL = "refused: bad URL"


class Refused(Exception):
    """The delivery must not be attempted; ``str()`` is what the attempt log records."""


def allow_http() -> bool:
    return bool(getattr(settings, "WEBHOOK_ALLOW_HTTP", False))


def _allowed_entries() -> tuple[set[str], list]:
    names, networks = set(), []
    for entry in getattr(settings, "WEBHOOK_ALLOWED_PRIVATE_HOSTS", ()) or ():
        entry = str(entry).strip().lower().strip("[]")
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            names.add(entry.rstrip("."))
    return names, networks


def _embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, NAT64), if any."""
    if ip.version != 6:
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def is_public(ip: IPAddress) -> bool:
    """True for an address a delivery may go to."""
    inner = _embedded_ipv4(ip)
    if inner is not None and not is_public(inner):
        return False
    if ip.version == 6 and ip.teredo is not None:
        return False
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or (ip.version == 6 and ip.is_site_local)
    )


def ip_literal(host: str) -> IPAddress | None:
    """The address when ``host`` is one, in any form the resolver would accept (``127.1``,
    ``0x7f000001``, ``2130706433``, ``[::1]``, ``fe80::1%eth0``)."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if host and all(c in "0123456789abcdefx." for c in host.lower()):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def _allowed(host: str, ip: IPAddress | None = None) -> bool:
    names, networks = _allowed_entries()
    if host in names:
        return True
    return ip is not None and any(ip.version == n.version and ip in n for n in networks)


@dataclass
class Target:
    scheme: str
    host: str  # as in the URL, lower case, no brackets: the Host header and the TLS server name
    port: int
    path: str  # path and query, as sent in the request line


def parse(url: str) -> Target:
    """Split a webhook URL, or raise ``ValueError`` with the reason (for a person)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError("not a valid URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError("webhook URLs must use https")
    if parts.username is not None or parts.password is not None:
        raise ValueError("a webhook URL must not contain a user name or password")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise ValueError("a webhook URL needs a host")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    if any(ord(c) < 33 or ord(c) > 126 for c in path):
        raise ValueError("the path must be URL-encoded")
    return Target(scheme, host, port or (443 if scheme == "https" else 80), path)


def registration_problem(url: str) -> str | None:
    """Why ``url`` cannot be registered, or None. No DNS look-up: that is done at delivery."""
    try:
        target = parse(url)
    except ValueError as exc:
        return str(exc)
    if target.scheme != "https" and not allow_http():
        return "webhook URLs must use https"
    host = target.host
    ip = ip_literal(host)
    if ip is not None:
        if not is_public(ip) and not _allowed(host, ip):
            return "the URL points at a private, loopback or reserved address"
        return None
    if _allowed(host):
        return None
    if "." not in host or any(host == s or host.endswith("." + s) for s in INTERNAL_SUFFIXES):
        return "the host must be a public DNS name, not an internal one"
    if any(host == s or host.endswith("." + s) for s in WILDCARD_DNS):
        return "wildcard DNS services (nip.io and the like) are not accepted"
    return None


def validate_webhook_url(url: str) -> None:
    problem = registration_problem(url)
    if problem is not None:
        raise ValidationError(f"Refused webhook URL: {problem}.", code="webhook_url")


# --------------------------------------------------------------------------- at delivery


def resolve(host: str, port: int) -> list[tuple[int, tuple]]:
    """``(family, sockaddr)`` for each address of ``host`` (tests put a fake resolver here)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return [(family, sockaddr) for family, _type, _proto, _name, sockaddr in infos]


def _resolve_within(host: str, port: int, seconds: float) -> list[tuple[int, tuple]]:
    """``resolve`` bounded in time (``getaddrinfo`` has no timeout of its own)."""
    result: dict = {}

    def run():
        try:
            result["ok"] = resolve(host, port)
        except Exception as exc:  # reported below as a failed connection
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True, name="webhook-resolve")
    thread.start()
    thread.join(max(seconds, 0))
    if thread.is_alive():
        raise TimeoutError("resolution timed out")
    if "error" in result:
        raise OSError("resolution failed") from result["error"]
    return result["ok"]


def vet(url: str, *, seconds: float) -> tuple[Target, list[tuple[int, tuple]]]:
    """The target of ``url`` and the addresses a delivery may connect to, or ``Refused``.
    Raises ``TimeoutError``/``OSError`` when the name cannot be resolved in ``seconds``."""
    try:
        target = parse(url)
    except ValueError:
        raise Refused(REFUSED_URL) from None
    if target.scheme != "https" and not allow_http():
        raise Refused(REFUSED_SCHEME)
    try:
        literal = ipaddress.ip_address(target.host)  # written as an address: nothing to resolve
    except ValueError:
        literal = None
    if literal is not None:
        family = socket.AF_INET6 if literal.version == 6 else socket.AF_INET
        addresses = [(family, (str(literal), target.port) + ((0, 0) if literal.version == 6 else ()))]
    else:
        addresses = _resolve_within(target.host, target.port, seconds)
    if not addresses:
        raise OSError("no address")
    for _family, sockaddr in addresses:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if not is_public(ip) and not _allowed(target.host, ip):
            raise Refused(REFUSED_PRIVATE)
    return target, addresses
