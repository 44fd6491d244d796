"""Host fingerprints remembered per host in the user's data directory (trust on first use)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs

from client.session import TrustState

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

    Returns the trust state and the fingerprint remembered before (empty if none). A changed
    fingerprint is not overwritten: only the user's confirmation does that
    (``remember_fingerprint``).
    """
    before = _known(directory).get(host, "")
    if not before:
        remember_fingerprint(directory, host, fingerprint)
        return TrustState.NEW, ""
    if before == fingerprint:
        return TrustState.KNOWN, before
    return TrustState.CHANGED, before
