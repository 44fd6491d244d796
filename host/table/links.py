"""What a table is given by its task: where its entries go, who is connected, its deadline.

A table never awaits, writes or publishes anything: its accepted actions go to
an ``Outbox``, and what the host decides on its own (the first dealer, each
deal's seed, whom a pause waits for) comes from its ``HostChoices``. Live, those
are the task's job outbox and ``LiveChoices``; while the journal is played back
they are the playback (``host.journal.recovery``), which answers from the journal.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from host.edge import auth
from host.journal.sqlite import Journal
from host.table.deadline import Deadline
from host.table.outbox import Outbox
from host.table.state import TableSettings
from scala40_net.fairdeal.exchange import new_seed
from scala40_net.fairdeal.identity import HostIdentity


class Presence(Protocol):
    """Who has an event stream open (the table's fan-out)."""

    def connected_seats(self) -> set[int]: ...


class HostChoices(Protocol):
    """What the host decides on its own, live from the OS and the streams, or as journaled."""

    def first_dealer(self, players: list[int]) -> int: ...

    def host_seed(self, deal_no: int) -> bytes: ...

    def pause_waits_for(self, people: set[int], playing: set[int]) -> set[int]:
        """Of the people at the table, those a pause between deals waits for; ``playing``
        are the seats still in the match (a busted one is not, R11.1)."""
        ...

    def timed_out_discard(self, chosen: int) -> int:
        """The discard of a turn the host plays for a seat, ``chosen`` by the table now."""
        ...


@dataclass(frozen=True)
class LiveChoices:
    """The live table's: the OS CSPRNG, as FAIR_DEAL.md asks for every seed; a pause waits
    for the people still playing the match whose stream is open."""

    presence: Presence

    def first_dealer(self, players: list[int]) -> int:
        return secrets.choice(players)

    def host_seed(self, deal_no: int) -> bytes:
        return new_seed()

    def pause_waits_for(self, people: set[int], playing: set[int]) -> set[int]:
        return people & playing & self.presence.connected_seats()

    def timed_out_discard(self, chosen: int) -> int:
        return chosen


@dataclass
class TableLinks:
    """The pieces of its task a table holds; ``outbox`` and ``choices`` change for a playback."""

    journal: Journal
    identity: HostIdentity
    tokens: auth.TokenBook
    settings: TableSettings
    presence: Presence
    deadline: Deadline
    outbox: Outbox
    choices: HostChoices
    # How a host bot takes a seat (the task's), once the job that seated it is durable.
    seat_bot: Callable[[int], None]
