"""The host's service edge: the gRPC servers and what a caller meets first (tokens, limits, TLS,
refusals in the caller's language)."""
