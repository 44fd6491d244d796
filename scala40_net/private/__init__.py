"""Private tables: a deck encrypted and shuffled by every seat, opened card by card with proofs.

The cryptographic core of docs/PRIVATE_TABLES.md, written once for the seats, the host's
relay and the offline audit: the group (``group``), the encrypted deck (``elgamal``), the
proofs (``proofs``, ``shuffle``), the signed and chained messages (``messages``, ``chain``),
one deal's protocol (``protocol``) and its audit (``audit``). It imports the engine's card
ids and deal mapping, never the network or the host.
"""
