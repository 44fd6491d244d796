"""Host fingerprints remembered per host in the user's data directory (trust on first use)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs

from client.session import TrustState
from scala40_net.names import fold

APP_NAME = "scala40"
TRUST_FILE = "known_hosts.json"


def data_dir() -> Path:
    """The client's data directory: ``SCALA40_DATA_DIR`` if set, else the platform's own."""
    override = os.environ.get("SCALA40_DATA_DIR")
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _known(directory: Path) -> dict[str, str]:
    try:
        known: dict[str, str] = json.loads((directory / TRUST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    return known


def remember_fingerprint(directory: Path, host: str, fingerprint: str) -> None:
    """Remember ``fingerprint`` for ``host`` from now on (first use, or a change confirmed)."""
    known = _known(directory)
    known[host] = fingerprint
    path = directory / TRUST_FILE
    path.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def check_fingerprint(directory: Path, host: str, fingerprint: str) -> tuple[TrustState, str]:
    """Compare ``fingerprint`` with the one remembered for ``host``; remember it the first time.

    ``host`` is the address as ``Invite.address`` writes it (``host:port``, a name in lower
    case, IPv6 in brackets): two hosts on one machine, on two ports, are two hosts.

    Returns the trust state and the fingerprint remembered before (empty if none). A changed
    fingerprint is not overwritten: only the user's confirmation does that
    (``remember_fingerprint``).
    """
    known = _known(directory)
    # An older client kept a name as it was typed: the same host under another case counts.
    before = known.get(host) or next((fp for key, fp in known.items() if key.lower() == host), "")
    if not before:
        remember_fingerprint(directory, host, fingerprint)
        return TrustState.NEW, ""
    if before == fingerprint:
        return TrustState.KNOWN, before
    return TrustState.CHANGED, before


# --- hosts found on the LAN, by the name they give -------------------------------------------
# Trust above is keyed by address, but on the LAN anyone may advertise any name from any
# address: the names of the hosts joined from the list are remembered with their fingerprints,
# so that a stranger taking a known host's name is flagged before anyone joins it.

NAMES_FILE = "known_host_names.json"


def known_host_names(directory: Path) -> dict[str, list[str]]:
    """The fingerprints remembered for each host name joined from the LAN's list, by the
    name's look (``scala40_net.names.fold``)."""
    try:
        known = json.loads((directory / NAMES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(known, dict):
        return {}
    return {
        str(name): [str(fp) for fp in fps] for name, fps in known.items() if isinstance(fps, list)
    }


def remember_host_name(directory: Path, name: str, fingerprint: str) -> None:
    """``fingerprint`` is a host called ``name``: remembered once it proved the fingerprint."""
    known = known_host_names(directory)
    fingerprints = known.setdefault(fold(name), [])
    if fingerprint not in fingerprints:
        fingerprints.append(fingerprint)
    path = directory / NAMES_FILE
    path.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def posing_as(known: dict[str, list[str]], name: str, fingerprint: str) -> str | None:
    """The fingerprint remembered for a host called (or looking like) ``name`` when this one,
    with ``fingerprint``, is none of the hosts of that name joined before; else None."""
    remembered = known.get(fold(name), [])
    return remembered[0] if remembered and fingerprint not in remembered else None
