"""A small LAN of network namespaces for tests: machines on one bridge, none in this namespace.

Each machine is a namespace with its loopback and one ``eth0`` at 10.77.0.N/24,
joined by a veth pair to a bridge that lives in a namespace of its own, so the
machine's own interfaces are never touched and no packet leaves the namespaces
made here. Names carry the PID; ``close`` deletes every namespace (their
interfaces go with them), also after a failure part-way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

SUBNET = "10.77.0"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


def unavailable() -> str | None:
    """Why this machine cannot build the LAN, or None when it can."""
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2) on this machine"
    if os.geteuid() != 0:
        return "network namespaces need root; run the tests as root to include the LAN tests"
    probe = f"s40probe{os.getpid()}"
    try:
        _ip("netns", "add", probe)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        stderr = getattr(error, "stderr", b"") or b""
        return f"`ip netns add` fails here: {stderr.decode(errors='replace').strip()}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return None


class Lan:
    """Machines ``1..n`` on one bridge; ``address(i)``, ``exec(i, …)``, ``link(i, up)``."""

    def __init__(self, machines: int) -> None:
        self.prefix = f"s40-{os.getpid()}-{id(self) % 10000}"
        self.bridge = f"{self.prefix}-br"
        self.names = {i: f"{self.prefix}-m{i}" for i in range(1, machines + 1)}
        self.made: list[str] = []
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _add(self, name: str) -> None:
        _ip("netns", "add", name)
        self.made.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def _build(self) -> None:
        self._add(self.bridge)
        _ip("-n", self.bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.bridge, "link", "set", "br0", "up")
        for i, name in self.names.items():
            self._add(name)
            port = f"v{i}"
            # Made inside the bridge's namespace, its peer sent straight into the machine's.
            _ip("-n", self.bridge, "link", "add", port, "type", "veth", "peer", "name", "eth0",
                "netns", name)  # fmt: skip
            _ip("-n", self.bridge, "link", "set", port, "master", "br0", "up")
            _ip("-n", name, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "multicast", "on", "up")
            self._multicast_route(i)

    def _multicast_route(self, i: int) -> None:
        # mDNS goes out of eth0: the route that an interface's going down removed comes back.
        _ip("-n", self.names[i], "route", "replace", "224.0.0.0/4", "dev", "eth0")

    def address(self, i: int) -> str:
        return f"{SUBNET}.{i}"

    def command(self, i: int, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside machine ``i``."""
        return ["ip", "netns", "exec", self.names[i], *argv]

    def link(self, i: int, up: bool) -> None:
        """Machine ``i``'s cable plugged in or pulled out (its eth0 up or down)."""
        _ip("-n", self.names[i], "link", "set", "eth0", "up" if up else "down")
        if up:
            self._multicast_route(i)

    def close(self) -> None:
        for name in reversed(self.made):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
        self.made.clear()
