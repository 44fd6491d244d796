"""The player's key on this machine: made on first start, shown, exported and imported."""

from __future__ import annotations

from pathlib import Path

from client.i18n import Text
from scala40_net.fairdeal.identity import IdentityError
from scala40_net.players import KEY_FILE_NAME, PlayerKey, short_fingerprint
from scala40_net.secretfile import readable_by_others, write_secret


def key_path(directory: Path) -> Path:
    return directory / KEY_FILE_NAME


def player_key(directory: Path, text: Text) -> PlayerKey:
    """The key kept in the client's data dir, made the first time; a key file others may
    read is refused (IdentityError, said in the player's language), as the host refuses its
    own."""
    path = key_path(directory)
    try:
        return PlayerKey.load_or_create(directory)
    except IdentityError:
        if path.exists() and readable_by_others(path):
            raise IdentityError(text("identity_readable", path=path)) from None
        raise IdentityError(text("identity_unusable", path=path)) from None


def show(directory: Path, text: Text) -> str:
    key = player_key(directory, text)
    return text(
        "identity_show",
        fingerprint=key.fingerprint,
        short=short_fingerprint(key.fingerprint),
        path=key_path(directory),
    )


def export_to(directory: Path, target: Path, text: Text) -> str:
    """Write the key to ``target`` (0600, not over an existing file): the player carries it
    to their other machine themselves; it never goes to any host."""
    key = player_key(directory, text)
    # Linked, never moved over: a file already at ``target`` stays as it was.
    if target.exists() or not write_secret(target, key.pem(), replace=False):
        raise IdentityError(text("identity_target_exists", path=target))
    return text("identity_exported", path=target, fingerprint=key.fingerprint)


def import_from(directory: Path, source: Path, text: Text, replace: bool = False) -> str:
    """Keep the key of ``source`` as this machine's; one already here is replaced only when
    asked (``replace``), since its seats and name at every host go with it."""
    try:
        key = PlayerKey.from_pem(source.read_bytes(), str(source))
    except OSError:
        raise IdentityError(text("identity_unusable", path=source)) from None
    except IdentityError:
        raise IdentityError(text("identity_unusable", path=source)) from None
    path = key_path(directory)
    if path.exists() and not replace:
        current = player_key(directory, text)
        if current.public_key != key.public_key:
            raise IdentityError(text("identity_would_replace", fingerprint=current.fingerprint))
    key.write(path)
    return text("identity_imported", fingerprint=key.fingerprint)
