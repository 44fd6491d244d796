"""Scala 40 over the network: the engine (cards, rules, bots, fair deal), its protobuf mapping,
and apart from it the network side, ``net`` and ``seat`` (tests/test_engine_imports.py)."""
