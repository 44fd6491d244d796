"""LAN discovery by mDNS/DNS-SD: a host advertises ``_scala40._tcp``, a client browses for it.

A host that listens on a LAN address advertises one service instance on the
addresses it listens on (for ``0.0.0.0``/``::`` its non-loopback interfaces;
a host on loopback never advertises), with a TXT record that carries its
name, its fingerprint and how many of its tables a player can still join
(docs/PROTOCOL.md "Finding a host on the LAN"). The count is checked once a
second and the record sent again only when it changed. A client lists what
it finds; what it finds is only a hint until the host proves the fingerprint
over TLS (``scala40_net.net.tls``), exactly as with an invite.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ifaddr
from zeroconf import (
    BadTypeInNameException,
    IPVersion,
    NonUniqueNameException,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from scala40_net.invite import Invite, InviteError, normal_fingerprint
from scala40_net.names import printable

log = logging.getLogger(__name__)

SERVICE_TYPE = "_scala40._tcp.local."
TXT_VERSION = "1"
MAX_NAME = 40  # characters of a host's name shown in a list
COUNT_CHECK_SECONDS = 1.0  # how often the advertiser looks at the open tables count
BROWSE_SECONDS = 3.0  # how long ``scala40`` with no address looks before it says "none yet"
RESOLVE_MS = 3000  # how long to wait for a found service's address and TXT record


class DiscoveryError(OSError):
    """mDNS could not be started on the addresses asked for (no multicast, no interface)."""


@dataclass(frozen=True)
class FoundHost:
    """A host seen on the LAN: a hint to connect to, pinned to ``fingerprint``."""

    service: str  # the DNS-SD instance name, unique on the LAN
    name: str
    address: str
    port: int
    fingerprint: str
    open_tables: int

    @property
    def target(self) -> str:
        """``HOST:PORT`` (``[V6]:PORT``): what the client connects to and remembers."""
        return Invite(self.address, self.port, None).address


# --- the host's side ------------------------------------------------------------------------


def advertised_addresses(listen: str) -> list[str]:
    """The addresses to advertise for a host listening on ``listen`` (``ADDR:PORT``).

    Every non-loopback interface address for a wildcard (IPv4 for ``0.0.0.0``,
    IPv4 and IPv6 for ``::``), the address itself otherwise; none on loopback.
    IPv6 link-local addresses are left out: they need an interface to mean anything.
    """
    host = listen.rsplit(":", 1)[0].strip("[]") if ":" in listen else listen
    if host in ("", "0.0.0.0", "::"):
        families = (4,) if host == "0.0.0.0" else (4, 6)
        return [a for a in _interface_addresses() if ipaddress.ip_address(a).version in families]
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a name: what it resolves to
        try:
            resolved = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
        except OSError:
            return []
        return sorted(a for a in resolved if _advertisable(ipaddress.ip_address(a)))
    return [str(address)] if _advertisable(address) else []


def _advertisable(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return not (address.is_loopback or address.is_link_local or address.is_unspecified)


def _interface_addresses() -> list[str]:
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            if _advertisable(ipaddress.ip_address(text)) and text not in found:
                found.append(text)
    return found


def txt_record(name: str, fingerprint: str, open_tables: int) -> dict[str, str]:
    """The TXT keys a host publishes (docs/PROTOCOL.md)."""
    return {
        "txtvers": TXT_VERSION,
        "name": name,
        "fp": fingerprint,
        "open": str(open_tables),
    }


def _instance_name(name: str, fingerprint: str) -> str:
    # The first fingerprint group keeps two hosts with one machine name apart; a DNS label
    # has at most 63 bytes.
    label = f"{clean_name(name)[:40]} {fingerprint[:4]}".strip()
    label = label.encode()[:63].decode(errors="ignore").replace(".", " ")
    return f"{label}.{SERVICE_TYPE}"


def _server_name(fingerprint: str) -> str:
    return f"scala40-{fingerprint.replace('-', '').lower()[:12]}.local."


class Advertiser:
    """One host's service on the LAN; ``start`` it, it keeps the open tables count fresh."""

    def __init__(
        self,
        addresses: Sequence[str],
        port: int,
        name: str,
        fingerprint: str,
        open_tables: Callable[[], int],
    ) -> None:
        self.addresses = list(addresses)
        self.port = port
        self.name = clean_name(name) or "scala40-host"
        self.fingerprint = fingerprint
        self.open_tables = open_tables
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._published = -1

    def _service_info(self, count: int) -> AsyncServiceInfo:
        if self._info is not None:  # the name registered, as the LAN's probing left it
            name = self._info.name
        else:
            name = _instance_name(self.name, self.fingerprint)
        return AsyncServiceInfo(
            SERVICE_TYPE,
            name,
            port=self.port,
            properties=txt_record(self.name, self.fingerprint, count),
            server=_server_name(self.fingerprint),
            parsed_addresses=self.addresses,
        )

    async def start(self) -> str:
        """Announce the service (mDNS probing takes about a second); returns its instance
        name. ``DiscoveryError`` when mDNS cannot run on the addresses."""
        try:
            self._zeroconf = AsyncZeroconf(interfaces=self.addresses)
            count = self.open_tables()
            info = self._service_info(count)
            # Another host with the same name and fingerprint group: zeroconf picks "… (2)".
            await self._zeroconf.async_register_service(info, allow_name_change=True)
        except (OSError, NonUniqueNameException, BadTypeInNameException, ValueError) as error:
            await self.stop()
            where = ", ".join(self.addresses)
            raise DiscoveryError(f"cannot advertise on {where}: {error}") from None
        self._info, self._published = info, count
        self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="advertiser")
        return info.name

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(COUNT_CHECK_SECONDS)
            try:
                await self.refresh()
            except OSError as error:  # the network went away for a moment: tried again
                log.warning("could not update the LAN advertisement: %s", error)

    async def refresh(self) -> bool:
        """Send the TXT record again if the open tables count changed; whether it did."""
        count = self.open_tables()
        if count == self._published or self._zeroconf is None or self._info is None:
            return False
        info = self._service_info(count)
        await self._zeroconf.async_update_service(info)
        self._info, self._published = info, count
        return True

    async def stop(self) -> None:
        """Withdraw the service (goodbye packets) and close the sockets."""
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None
        if self._zeroconf is not None:
            zeroconf, self._zeroconf = self._zeroconf, None
            with contextlib.suppress(OSError):
                await zeroconf.async_close()


# --- the client's side ----------------------------------------------------------------------


def clean_name(text: str) -> str:
    """A name from the network as a terminal may show it: printable, one line, trimmed."""
    return printable(text)[:MAX_NAME]


def found_host(info: AsyncServiceInfo) -> FoundHost | None:
    """What a resolved service says, or None when it is not a Scala 40 host's to list."""
    properties = info.decoded_properties
    addresses = info.parsed_addresses(IPVersion.V4Only) or [
        a for a in info.parsed_addresses(IPVersion.V6Only) if not a.startswith("fe80")
    ]
    if not addresses or not info.port:
        return None
    try:
        fingerprint = normal_fingerprint(properties.get("fp") or "")
    except InviteError:
        return None  # no fingerprint, nothing to pin: not listed
    count_text = properties.get("open") or "0"
    open_tables = int(count_text) if re.fullmatch(r"\d{1,6}", count_text) else 0
    service = info.name.removesuffix("." + SERVICE_TYPE)
    name = clean_name(properties.get("name") or service) or clean_name(service)
    return FoundHost(info.name, name, addresses[0], int(info.port), fingerprint, open_tables)


class Browser:
    """The Scala 40 hosts on the LAN, kept up to date while it runs (``async with``).

    ``interfaces``: the addresses to browse on (default: every interface).
    ``on_change`` is called after each host found, changed or gone.
    """

    def __init__(
        self,
        interfaces: Sequence[str] | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.interfaces = list(interfaces) if interfaces else None
        self.on_change = on_change
        # By service name and fingerprint: a stranger advertising a host's very instance name
        # is listed beside it, never in its place.
        self.found: dict[tuple[str, str], FoundHost] = {}
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._resolving: set[asyncio.Task[None]] = set()

    def hosts(self) -> list[FoundHost]:
        """The hosts found, in a stable order: by name, then address."""
        return sorted(
            self.found.values(), key=lambda h: (h.name.casefold(), h.address, h.port, h.fingerprint)
        )

    async def __aenter__(self) -> Browser:
        try:
            if self.interfaces:
                self._zeroconf = AsyncZeroconf(interfaces=self.interfaces)
            else:
                self._zeroconf = AsyncZeroconf()
            self._browser = AsyncServiceBrowser(
                self._zeroconf.zeroconf, SERVICE_TYPE, handlers=[self._changed]
            )
        except OSError as error:
            await self.__aexit__(None, None, None)
            where = ", ".join(self.interfaces) if self.interfaces else "this machine's interfaces"
            raise DiscoveryError(f"cannot look for hosts on {where}: {error}") from None
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in list(self._resolving):
            task.cancel()
        if self._browser is not None:
            await self._browser.async_cancel()
            self._browser = None
        if self._zeroconf is not None:
            zeroconf, self._zeroconf = self._zeroconf, None
            with contextlib.suppress(OSError):
                await zeroconf.async_close()

    def _changed(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            self.removed(name)
            return
        task = asyncio.get_running_loop().create_task(self._resolve(zeroconf, name))
        self._resolving.add(task)
        task.add_done_callback(self._resolving.discard)

    async def _resolve(self, zeroconf: Zeroconf, name: str) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        try:
            answered = await info.async_request(zeroconf, RESOLVE_MS)
        except OSError as error:
            log.info("could not resolve %s: %s", name, error)
            return
        host = found_host(info) if answered else None
        if host is None:
            return
        self.listed(name, host)

    def listed(self, name: str, host: FoundHost) -> None:
        """The service ``name`` answered as ``host``: a row of its own per fingerprint."""
        if self.found.get((name, host.fingerprint)) != host:
            self.found[name, host.fingerprint] = host
            if self.on_change is not None:
                self.on_change()

    def removed(self, name: str) -> None:
        """The service ``name`` said goodbye: every row it had goes."""
        gone = [key for key in self.found if key[0] == name]
        for key in gone:
            del self.found[key]
        if gone and self.on_change is not None:
            self.on_change()


async def browse(
    seconds: float = BROWSE_SECONDS, interfaces: Sequence[str] | None = None
) -> list[FoundHost]:
    """The hosts found on the LAN within ``seconds``."""
    async with Browser(interfaces) as browser:
        await asyncio.sleep(seconds)
        return browser.hosts()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scala40_net.net.discovery [--seconds S] [--interface ADDR …]``: one line per
    host found (name, address, fingerprint, open tables); exit 1 when none answered."""
    parser = argparse.ArgumentParser(
        prog="python -m scala40_net.net.discovery",
        description="List the Scala 40 hosts on the LAN.",
    )
    parser.add_argument("--seconds", type=float, default=BROWSE_SECONDS, help="how long to look")
    parser.add_argument(
        "--interface",
        action="append",
        metavar="ADDR",
        help="look only on the interface with this address (again for more)",
    )
    args = parser.parse_args(argv)
    try:
        hosts = asyncio.run(browse(args.seconds, args.interface))
    except DiscoveryError as error:
        print(f"discovery: {error}", file=sys.stderr)
        return 2
    for host in hosts:
        print(f"{host.name}\t{host.target}\t{host.fingerprint}\topen {host.open_tables}")
    if not hosts:
        print(f"discovery: no Scala 40 host answered in {args.seconds:g} s", file=sys.stderr)
    return 0 if hosts else 1


if __name__ == "__main__":
    sys.exit(main())
