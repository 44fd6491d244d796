"""The host's TLS key and certificate, made on first start and kept in its data dir (0600).

The certificate is bound to the host's identity (``scala40_net.net.tls``): one
fingerprint for the connection and the deal records. A certificate found bound
to another identity (the identity key was replaced) is made anew.
"""

from __future__ import annotations

from pathlib import Path

from scala40_net.fairdeal.identity import HostIdentity, check_private
from scala40_net.net.tls import PinError, bound_fingerprint, make_certificate
from scala40_net.secretfile import write_secret

KEY_FILE = "host_tls_key.pem"
CERT_FILE = "host_tls_cert.pem"


def load_or_create(data_dir: Path, identity: HostIdentity) -> tuple[bytes, bytes]:
    """(key PEM, certificate PEM) for ``identity``, made and kept on first use."""
    key_path, cert_path = data_dir / KEY_FILE, data_dir / CERT_FILE
    if key_path.exists() and cert_path.exists():
        check_private(key_path)
        key_pem, cert_pem = key_path.read_bytes(), cert_path.read_bytes()
        try:
            if bound_fingerprint(cert_pem) == identity.fingerprint:
                return key_pem, cert_pem
        except PinError:
            pass  # damaged or foreign: made anew below
    key_pem, cert_pem = make_certificate(identity)
    write_secret(key_path, key_pem)
    write_secret(cert_path, cert_pem)
    return key_pem, cert_pem
