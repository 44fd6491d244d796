"""Connections per client address: counted from the kernel's table, those past the cap shut.

gRPC Python has no hook where a connection is accepted, and a relay in front of it would
carry every play's bytes through Python. So the host looks at its own sockets instead, a few
times a second and outside any call: the kernel's table of TCP sockets, asked by netlink
for the host's port (sock_diag: a few milliseconds of the kernel's time, which walks its
whole table; skipped while the machine has fewer TCP sockets than one address's share),
says each one's client address, and the host's open descriptors say which of them are its
own. An address holding more than its cap has its newest connections shut
down (``shutdown(2)`` on a duplicate of gRPC's descriptor: gRPC sees the connection end as if
the client had gone, and closes its descriptor). Those that made a call first stay, in the
order of their first calls (``limits.Callers``), then the silent ones by the look that first
saw them: a player's connection, which calls as it is made, is the last to go. (The socket's
inode is no order: the kernel numbers sockets from a batch per CPU.)

While an address holds its cap, the kernel drops its new connections before they are
accepted: a socket filter (classic BPF) on gRPC's listening socket drops the SYNs from the
addresses at their cap, so that a flood reopening what is shut takes no descriptor and no
slot of the host's cap meanwhile. Connections already made are never touched by it (each
keeps the filter of the moment it was made, which drops only the addresses then at their
cap, never its own). Linux only: elsewhere the global cap (``limits.connection_cap``) is the
only bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ipaddress
import logging
import os
import socket
import struct
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from host.edge.limits import Callers, OncePer

log = logging.getLogger(__name__)

OWN_DESCRIPTORS = Path("/proc/self/fd")
LISTENING = 10  # the kernel's state number for a listening socket (TCP_LISTEN)
# At most this many addresses are dropped by the listening socket's filter at once (the
# filter's jumps are short): the ones holding the most connections.
FILTERED_ADDRESSES = 100
# Netlink's socket diagnostics (linux/netlink.h, linux/sock_diag.h, linux/inet_diag.h).
NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
_HEADER = struct.Struct("=IHHII")  # nlmsghdr
_MESSAGE = struct.Struct("=BBBB")  # inet_diag_msg's family, state, timer, retransmits
_ALL_STATES = 0xFFF


def available() -> bool:
    """Whether this system answers socket diagnostics and shows the host's descriptors."""
    if not sys.platform.startswith("linux") or not OWN_DESCRIPTORS.exists():
        return False
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG).close()
    except OSError:
        return False
    return True


def _request(family: int, port: int) -> bytes:
    """A dump of the TCP sockets of ``family`` whose local port is ``port``."""
    sock_id = struct.pack(">HH16s16s", port, 0, b"", b"") + struct.pack("=III", 0, 0, 0)
    body = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, _ALL_STATES) + sock_id
    header = _HEADER.pack(
        _HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0
    )
    return header + body


def _client(family: int, raw: bytes) -> str:
    """A client address from a socket id's 16 bytes; an IPv4 client of an IPv6 socket as its
    IPv4 address."""
    if family == socket.AF_INET:
        return str(ipaddress.IPv4Address(raw[:4]))
    address = ipaddress.IPv6Address(raw)
    return str(address.ipv4_mapped or address)


def tcp_sockets_in_use() -> int:
    """How many TCP sockets this machine's network (namespace) has in use, every process's:
    a look costs tens of microseconds, where the table's costs milliseconds."""
    total = 0
    for name in ("sockstat", "sockstat6"):
        with contextlib.suppress(FileNotFoundError), open(f"/proc/self/net/{name}") as lines:
            for line in lines:
                if line.startswith(("TCP:", "TCP6:")):
                    total += int(line.split()[2])
    return total


FAMILIES = (socket.AF_INET, socket.AF_INET6)


def sockets_on(port: int, families: Iterable[int] = FAMILIES) -> list[tuple[int, str, int, int]]:
    """(family, client address, client port, socket inode) of each TCP connection to local
    ``port``, and (family, "", 0, inode) of each socket listening on it, for the sockets of
    ``families`` (each one walk of the kernel's whole table); a socket no process holds
    (inode 0) left out."""
    found = []
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as link:
        link.settimeout(1.0)  # the kernel answers at once; never hold the host's loop
        for family in families:
            link.send(_request(family, port))
            done = False
            while not done:
                data = link.recv(1 << 16)
                offset = 0
                while offset + _HEADER.size <= len(data):
                    length, kind, _, _, _ = _HEADER.unpack_from(data, offset)
                    if kind == NLMSG_DONE:
                        done = True
                        break
                    if kind == NLMSG_ERROR:
                        (errno,) = struct.unpack_from("=i", data, offset + _HEADER.size)
                        if errno == 0:  # an acknowledgement: the end
                            done = True
                            break
                        raise OSError(-errno, f"socket diagnostics: {os.strerror(-errno)}")
                    message = offset + _HEADER.size
                    _, state, _, _ = _MESSAGE.unpack_from(data, message)
                    local, remote = struct.unpack_from(">HH", data, message + 4)
                    client = data[message + 24 : message + 40]
                    (inode,) = struct.unpack_from("=I", data, message + 68)
                    if inode and local == port:
                        if state == LISTENING:
                            found.append((family, "", 0, inode))
                        else:
                            found.append((family, _client(family, client), remote, inode))
                    offset += (length + 3) & ~3
                    if length == 0:
                        done = True
                        break
    return found


def past_the_cap(
    by_address: dict[str, list[int]],
    per_address: int,
    seen: dict[int, int],
    first_call: dict[int, int] | None = None,
) -> dict[str, list[int]]:
    """The connections (inodes) each address holds past ``per_address``: those that called
    last or never, keeping first the ones that made a call, by their first call
    (``first_call``: inode -> its rank), then the others by the look that first saw them
    (``seen``: inode -> sweep number), inode last only to make the order total."""
    called = first_call or {}
    never = 1 << 62

    def kept_first(inode: int) -> tuple[int, int, int]:
        rank = called.get(inode)
        if rank is not None:
            return (0, rank, inode)
        return (1, seen.get(inode, never), inode)

    over = {}
    for address, inodes in by_address.items():
        if len(inodes) > per_address:
            over[address] = sorted(inodes, key=kept_first)[per_address:]
    return over


def _own_sockets(inodes: set[int]) -> Iterator[socket.socket]:
    """This process's sockets whose inodes are ``inodes``, each a duplicate descriptor closed
    when the caller moves on."""
    for name in os.listdir(OWN_DESCRIPTORS):
        try:
            target = os.readlink(OWN_DESCRIPTORS / name)
        except OSError:  # closed meanwhile
            continue
        if not target.startswith("socket:["):
            continue
        inode = int(target[8:-1])
        if inode not in inodes:
            continue
        try:
            duplicate = os.dup(int(name))
        except OSError:
            continue
        try:
            # The descriptor may have been closed and its number reused since it was read:
            # only the very socket seen is shut down.
            if os.fstat(duplicate).st_ino != inode:
                continue
            with socket.socket(fileno=duplicate) as sock:
                duplicate = -1  # the socket object closes it
                yield sock
        finally:
            if duplicate >= 0:
                os.close(duplicate)


def shut(inodes: set[int]) -> int:
    """Shut down the connections of this process whose sockets are ``inodes``; how many."""
    done = 0
    for sock in _own_sockets(inodes):
        with contextlib.suppress(OSError):  # already ended by the client
            sock.shutdown(socket.SHUT_RDWR)
            done += 1
    return done


# Classic BPF, as the kernel's socket filters take it (linux/filter.h, linux/bpf_common.h).
SO_ATTACH_FILTER = 26
SO_DETACH_FILTER = 27
_LD_W_ABS, _LD_B_ABS, _RSH_K, _JEQ_K, _RET_K = 0x20, 0x30, 0x74, 0x15, 0x06
_NETWORK = -0x100000  # SKF_NET_OFF: offsets from the IP header, not the TCP one
_ACCEPT, _DROP = 0xFFFFFFFF, 0


class _Instruction(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    )


class _Program(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction)))


Instruction = tuple[int, int, int, int]


def _at(offset: int) -> int:
    return (_NETWORK + offset) & 0xFFFFFFFF


def dropping(addresses: Iterable[str]) -> list[Instruction]:
    """A socket filter that drops what comes from ``addresses`` and takes the rest: each IPv4
    address is compared with an IPv4 packet's source, each IPv6 one with an IPv6 packet's."""
    v4 = [ipaddress.ip_address(a) for a in addresses]
    v6 = [a for a in v4 if a.version == 6]
    v4 = [a for a in v4 if a.version == 4]
    four: list[Instruction] = [(_LD_W_ABS, 0, 0, _at(12))]  # the IPv4 source
    for address in v4:
        four += [(_JEQ_K, 0, 1, int(address)), (_RET_K, 0, 0, _DROP)]
    four.append((_RET_K, 0, 0, _ACCEPT))
    six: list[Instruction] = []
    for address in v6:
        words = [int.from_bytes(address.packed[i : i + 4], "big") for i in range(0, 16, 4)]
        for n, word in enumerate(words):  # the IPv6 source, a word at a time
            left = 2 * (3 - n) + 1  # to the next address: the words after this one, the drop
            six += [(_LD_W_ABS, 0, 0, _at(8 + 4 * n)), (_JEQ_K, 0, left, word)]
        six.append((_RET_K, 0, 0, _DROP))
    six.append((_RET_K, 0, 0, _ACCEPT))
    version = [(_LD_B_ABS, 0, 0, _at(0)), (_RSH_K, 0, 0, 4), (_JEQ_K, 0, len(four), 4)]
    return version + four + six


def filter_listeners(inodes: set[int], program: list[Instruction] | None) -> int:
    """Put ``program`` on this process's listening sockets ``inodes`` (None: take the filter
    off); how many."""
    done = 0
    for sock in _own_sockets(inodes):
        if program is None:
            with contextlib.suppress(OSError):  # none was on
                sock.setsockopt(socket.SOL_SOCKET, SO_DETACH_FILTER, 0)
            done += 1
            continue
        code = (_Instruction * len(program))(*(_Instruction(*i) for i in program))
        fprog = _Program(len(program), code)
        sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, bytes(fprog))  # the kernel copies it
        done += 1
    return done


@dataclass
class ConnectionGuard:
    """Every ``every`` seconds (``alert`` seconds while an address holds its share), shut
    each client address's connections to ``port`` past ``per_address``."""

    port: int
    per_address: int
    every: float
    alert: float
    callers: Callers = field(default_factory=Callers)
    said: OncePer = field(default_factory=OncePer)
    _seen: dict[int, int] = field(default_factory=dict)  # inode -> the sweep that first saw it
    _sweeps: int = 0
    _alert: bool = False
    # The families of the host's listening sockets, once seen: only theirs are asked for (an
    # IPv4 client of an IPv6 socket is in the IPv6 table).
    _families: tuple[int, ...] = FAMILIES
    # The addresses the listening sockets' filter drops now, and those sockets.
    dropped: frozenset[str] = frozenset()
    _listeners: set[int] = field(default_factory=set)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.dropped:
            filter_listeners(self._listeners, None)
            self.dropped = frozenset()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.alert if self._alert else self.every)
            try:
                self.sweep()
            except (OSError, ValueError, struct.error) as error:  # the next look may do
                if self.said.due("sweep"):
                    log.warning("connections per address not counted: %s", error)

    def sweep(self) -> int:
        """One look at the connections; how many were shut down."""
        self._sweeps += 1
        if not self.dropped and tcp_sockets_in_use() < self.per_address:
            self._alert = False  # no address can hold its share: the table is not read
            return 0
        by_address: dict[str, list[int]] = {}
        families = set()
        peers: dict[tuple[str, int], int] = {}
        for family, address, port, inode in sockets_on(self.port, self._families):
            by_address.setdefault(address, []).append(inode)
            if not address:
                families.add(family)
            else:
                peers[address, port] = inode
        self._families = tuple(sorted(families)) or FAMILIES
        listeners = set(by_address.pop("", []))
        held = {inode for inodes in by_address.values() for inode in inodes}
        for inode in [inode for inode in self._seen if inode not in held]:
            del self._seen[inode]
        for inode in held:
            self._seen.setdefault(inode, self._sweeps)
        first_call = {peers[peer]: rank for peer, rank in self.callers.ranks(peers).items()}
        over = past_the_cap(by_address, self.per_address, self._seen, first_call)
        self._drop_new_from(by_address, listeners)
        self._alert = bool(self.dropped)
        if not over:
            return 0
        done = shut({inode for inodes in over.values() for inode in inodes})
        for address, inodes in over.items():
            if self.said.due(address):
                log.warning(
                    "%s holds %d connections: closing %d past the cap of %d per address",
                    address,
                    len(by_address[address]),
                    len(inodes),
                    self.per_address,
                )
        return done

    def _drop_new_from(self, by_address: dict[str, list[int]], listeners: set[int]) -> None:
        """Have the kernel drop new connections from the addresses at their cap, and take
        them again from those below it."""
        full = sorted(
            (a for a, inodes in by_address.items() if len(inodes) >= self.per_address),
            key=lambda a: -len(by_address[a]),
        )
        dropped = frozenset(full[:FILTERED_ADDRESSES])
        if dropped == self.dropped and listeners == self._listeners:
            return
        if dropped:
            filter_listeners(listeners, dropping(sorted(dropped)))
        else:
            filter_listeners(listeners, None)
        for address in dropped - self.dropped:
            if self.said.due(f"drop {address}"):
                log.warning(
                    "%s holds its %d connections: new ones from it are dropped until it "
                    "holds fewer",
                    address,
                    self.per_address,
                )
        self.dropped, self._listeners = dropped, listeners
