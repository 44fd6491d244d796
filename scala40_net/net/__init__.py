"""The network around the engine, shared by the host and the seats: TLS bound to the host's
identity (``tls``) and LAN discovery (``discovery``)."""
