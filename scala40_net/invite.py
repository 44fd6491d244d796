"""Invites: ``scala40://HOST:PORT/?fp=FINGERPRINT``, the address and the host's fingerprint in one.

Whoever joins with an invite pins that fingerprint: the host must prove it
(``scala40_net.net.tls``) before any call. The fingerprint is the host's identity's,
8 groups of 4 hex digits (``fairdeal.identity.fingerprint``).
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

SCHEME = "scala40"
DEFAULT_PORT = 4040
_FINGERPRINT = re.compile(r"^[0-9A-F]{4}(-[0-9A-F]{4}){7}$")


class InviteError(ValueError):
    """Text that is not an invite, said in a sentence."""


@dataclass(frozen=True)
class Invite:
    host: str  # a name in lower case, an IPv4 address, or an IPv6 address without brackets
    port: int
    fingerprint: str | None  # None: an address alone, trusted on first use

    @property
    def address(self) -> str:
        """``host:port``, an IPv6 host in brackets: one way of writing each address, the
        gRPC target and the key a fingerprint is remembered under (trust on first use)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def make_invite(host: str, port: int, fingerprint: str) -> str:
    return f"{SCHEME}://{Invite(host, port, None).address}/?fp={fingerprint}"


def normal_fingerprint(text: str) -> str:
    """``0b49 6407 …`` or ``0B496407…`` as ``0B49-6407-…``; InviteError if it is not one."""
    digits = re.sub(r"[\s:-]", "", text).upper()
    grouped = "-".join(digits[i : i + 4] for i in range(0, len(digits), 4))
    if not _FINGERPRINT.match(grouped):
        raise InviteError(f"{text!r} is not a host fingerprint (8 groups of 4 hex digits)")
    return grouped


def parse(text: str) -> Invite:
    """An invite, or a plain ``HOST``, ``HOST:PORT``, ``[V6]``, ``[V6]:PORT`` or a bare IPv6
    address (no fingerprint). The port left out is 4040; docs/PROTOCOL.md "Invites"."""
    text = text.strip()
    if text.lower().startswith(f"{SCHEME}://"):
        parts = urlsplit(text)
        if not parts.hostname:
            raise InviteError(f"{text!r} names no host")
        try:
            port = DEFAULT_PORT if parts.port is None else parts.port
        except ValueError:
            port = 0
        if not 0 < port < 65536:
            raise InviteError(f"{text!r} has a port that is not a number 1..65535")
        found = {normal_fingerprint(fp) for fp in parse_qs(parts.query).get("fp", [])}
        if not found:
            raise InviteError(f"{text!r} has no fingerprint (…/?fp=XXXX-XXXX-…)")
        if len(found) > 1:
            raise InviteError(f"{text!r} names more than one fingerprint")
        return Invite(parts.hostname.lower(), port, found.pop())
    host, port = _address(text)
    return Invite(host.lower(), port, None)


def _address(text: str) -> tuple[str, int]:
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":") or str(DEFAULT_PORT)
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:  # a name, an IPv4 address, or a bare IPv6 address
        host, port_text = text, str(DEFAULT_PORT)
    if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise InviteError(f"{text!r} is not HOST, HOST:PORT or an invite")
    return host, int(port_text)


def lan_address() -> str:
    """This machine's address on the LAN: the interface a route to the outside would use.

    A UDP "connect" only chooses the route; no packet is sent.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed, nothing is sent
            return str(probe.getsockname()[0])
        except OSError:
            return socket.gethostname()
