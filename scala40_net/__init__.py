"""Scala 40 over the network: cards, rules engine, fair deal, records and bots."""
