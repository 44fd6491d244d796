"""The host's side of a private deal: the relayed messages, and the engine's state on positions.

At a private table (docs/PRIVATE_TABLES.md) the host relays every seat's signed
message and checks it as any reader does (``ChainChecker`` and ``DealLedger`` of
``scala40_net.private``), but it reads a card only once its owner has opened it to
everyone. The engine (``scala40_net.deal``) is unchanged: it holds a ``DealState`` in
which every card the host does not know is a *stand-in id*, an id whose real card is
elsewhere. The deal starts from the cut deck in position order (stand-in id ``p`` at
position ``p``); each stand-in id names the ``(round, position)`` it stands for. When a
position is opened to everyone as card ``c``, the stand-in at that place and the id
``c`` (a stand-in somewhere else, hidden too) swap places in the state: the public part
of the state (table, discard pile, counts) never changes, and the card is then where it
really is. So the engine checks every rule on public cards exactly as it does at any
table; the rules that read a whole hand are settled in docs/PRIVATE_TABLES.md "What the
host knows" (R8.2's S9, the scoring after every REVEAL, R10.2, the timed-out turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from scala40_net import deal, match
from scala40_net.private.chain import HOST, ChainChecker, FaultFound, FaultKind
from scala40_net.private.encoding import EncodingError
from scala40_net.private.messages import EVERYONE, Envelope, Kind, SharesBody
from scala40_net.private.protocol import DealLedger, DealSetup, Phase, ShuffleCheck

Place = tuple[int, int]  # (round, position) of a deal's encrypted decks


class PrivateRefused(Exception):
    """A private message the host does not take, and why (the checker's fault, or the host's)."""


# What a fault a seat's checker lays on the relay means when the host reads a message the
# seat handed it itself: nothing stood between them, so it is the sender's.
_SENDERS_FAULT = {
    FaultKind.ALTERED: "its message does not read, or its signature fails",
    FaultKind.FOREIGN: "its message is another table's or another deal's",
    FaultKind.MISSING: "its message is not the next of its chain",
    FaultKind.DIVERGED: (
        "its message follows another setup of this deal (dealer, deck, seats or keys), or "
        "other messages, than the host announced and relayed"
    ),
}


def _refused(seat: int, found: FaultFound) -> PrivateRefused:
    """The host's refusal of ``seat``'s message for ``found``. A seat reading a relayed
    message names the host for a fault the relay could have made; the host took these bytes
    from the seat itself, and names the seat (a host that relayed them would be named by
    every other seat)."""
    fault = found.fault
    if fault.culprit != HOST:
        return PrivateRefused(str(found))
    why = _SENDERS_FAULT.get(fault.kind, fault.detail)
    return PrivateRefused(f"seat {seat}: {fault.kind}: {why}")


@dataclass
class PendingEnd:
    """The move that ended a private deal, held until every seat revealed: the state before
    it, and who made it (None: the host's own step), so it is applied again on the opened
    hands and the end is scored on the real cards."""

    before: match.MatchState
    seat: int | None
    action: match.MatchAction


@dataclass
class HostPrivateDeal:
    """One private deal as the host holds it: transcript, ledger and the stand-in ids."""

    setup: DealSetup
    signing_keys: dict[int, bytes]
    transcript: list[bytes] = field(default_factory=list)
    # Every stand-in id of the engine's state and the place it stands for; its inverse.
    place_of: dict[int, Place] = field(default_factory=dict)
    id_at: dict[Place, int] = field(default_factory=dict)
    # The round of the stock being drawn (0: the deal's own deck; r: the r-th rebuild).
    stock_round: int = 0
    # The last stock draw's place, for its CardDrawn event.
    last_draw: Place | None = None
    # The last stock draw once published: its drawer and place (whose shares the drawer
    # waits for before it can play).
    drawn: tuple[int, Place] | None = None
    # A rebuilt stock's shuffles are due (no draw from the stock until they are in).
    shuffles_due: bool = False
    pending_end: PendingEnd | None = None
    started: bool = False
    # The turn clock of the seat to move ran out: its grace period runs (R10.3 after it).
    timed_out: bool = False

    def __post_init__(self) -> None:
        self.checker = ChainChecker(
            self.setup.table_id,
            self.setup.deal_no,
            self.signing_keys,
            self.setup.digest(self.signing_keys),
        )
        # A share to one seat is checked by that seat; the host checks it only once it reads
        # it, when its place is opened to everyone (docs/PRIVATE_TABLES.md "What the host
        # checks"): off the path of the draw and of the deal's start.
        self.ledger = DealLedger(self.setup, defer_shares=True)
        self._index_of: dict[bytes, int] = {}
        # Every shuffle is relayed once its place, turn and input deck hold; its proof is
        # checked after, off the table's job and at the lowest CPU priority
        # (host.table.shuffle_checks): by its envelope's digest, those not yet found to hold.
        # One that does not hold voids the deal (R10.3, ``PrivateCycle.shuffle_checked``);
        # one still here when the deal is scored is checked then (``check_shuffles``).
        self.unchecked_shuffles: dict[bytes, ShuffleCheck] = {}

    # --- the messages ---------------------------------------------------------------------

    def receive(self, seat: int, data: bytes) -> tuple[int, Envelope | None]:
        """Check ``seat``'s envelope and take it in: its place in the transcript, and the
        envelope when it is new (None: the same envelope sent again, answered as the first
        time)."""
        try:
            env = Envelope.parse(data)
        except EncodingError as exc:
            raise PrivateRefused(f"the message does not read: {exc}") from None
        if env.author != seat:
            raise PrivateRefused(
                f"seat {seat} sent a message signed as seat {env.author}: a seat sends only "
                "as itself"
            )
        known = self._index_of.get(env.digest)
        if known is not None:
            return known, None
        try:
            self.checker.accept(data)
        except FaultFound as found:
            raise _refused(seat, found) from None
        checks: list[ShuffleCheck] = []
        try:
            self._check_opened(env)
            self.ledger.apply(env, later=checks)
        except FaultFound as found:
            self.checker.chains[env.author].pop()
            raise _refused(seat, found) from None
        for check in checks:
            self.unchecked_shuffles[env.digest] = check
        index = len(self.transcript)
        self.transcript.append(bytes(data))
        self._index_of[env.digest] = index
        return index, env

    def check_shuffles(self) -> int | None:
        """Every shuffle proof not checked yet, checked now: the first shuffler whose proof
        does not hold (None: all hold)."""
        while self.unchecked_shuffles:
            digest, check = next(iter(self.unchecked_shuffles.items()))
            del self.unchecked_shuffles[digest]
            if not check.holds():
                return check.seat
        return None

    def _check_opened(self, env: Envelope) -> None:
        """Before a SHARES to everyone is taken in: the shares of its places the host kept
        unchecked, checked (FaultFound naming the author of one that does not hold)."""
        if env.kind != Kind.SHARES or not self.ledger.unchecked:
            return
        body = env.body()
        assert isinstance(body, SharesBody)
        if body.recipient != EVERYONE:
            return
        for item in body.shares:
            self.ledger.check_unchecked(body.round, item.position)

    def dealt(self) -> bool:
        """Steps 1-5 done: keys, shuffles, the cut, every hand's shares, the first discard's."""
        ledger, setup = self.ledger, self.setup
        if ledger.phase != Phase.PLAYING or ledger.round != 0:
            return False
        for owner, positions in setup.positions.hands.items():
            for position in positions:
                if ledger.missing_shares(0, position, owner):
                    return False
        held = ledger.shares.get((0, setup.positions.first_discard), {})
        return all(s in held for s in setup.seats)

    def rebuilt(self) -> bool:
        """Every seat has shuffled the rebuilt stock of ``stock_round``."""
        ledger = self.ledger
        return ledger.phase == Phase.PLAYING and ledger.round == self.stock_round

    def owner_opened(self, place: Place) -> bool:
        """Whether every seat's share of ``place`` is in (the card is public)."""
        held = self.ledger.shares.get(place, {})
        return all(s in held for s in self.setup.seats)

    # --- the engine's state on stand-in ids -----------------------------------------------

    def start_deck(self) -> list[int]:
        """The deck the engine deals: stand-in ``p`` at position ``p``, the first discard
        opened to everyone in its place."""
        size = self.setup.deck_size
        deck = list(range(size))
        self.place_of = {p: (0, p) for p in range(size)}
        self.id_at = {(0, p): p for p in range(size)}
        first = self.setup.positions.first_discard
        card = self.ledger.open_card(0, first)
        other = self.id_at[(0, first)]
        if card != other:
            at = deck.index(card)
            deck[first], deck[at] = card, other
            self._swap_names(other, card)
        del self.place_of[card]
        del self.id_at[(0, first)]
        self.started = True
        return deck

    def _swap_names(self, standing: int, card: int) -> None:
        """Stand-in ``standing`` takes the place ``card`` stood for; ``card`` is known."""
        place_of_card = self.place_of[card]
        place_of_standing = self.place_of[standing]
        self.place_of[standing] = place_of_card
        self.id_at[place_of_card] = standing
        self.place_of[card] = place_of_standing
        self.id_at[place_of_standing] = card

    def open_place(self, state: deal.DealState, place: Place) -> tuple[deal.DealState, int]:
        """The card at ``place``, opened to everyone, put where it really is in ``state``."""
        card = self.ledger.open_card(*place)
        standing = self.id_at.get(place)
        if standing is None:
            raise PrivateRefused(f"position {place[1]} of deck {place[0]} is opened already")
        if card != standing:
            if card not in self.place_of:
                raise PrivateRefused(
                    f"the card opened at position {place[1]} is already public, which every "
                    "shuffle proof rules out"
                )
            state = _swapped(state, standing, card)
            self._swap_names(standing, card)
        del self.place_of[card]
        del self.id_at[place]
        return state, card

    def is_hidden(self, card: int) -> bool:
        return card in self.place_of

    def stock_place(self, state: deal.DealState) -> Place:
        """The place of the stock's top card (the next stock draw)."""
        return self.place_of[state.stock[0]]

    def rebuild(self, pile_below_top: tuple[int, ...]) -> tuple[int, ...]:
        """R10.1: the stock rebuilt from public discards: they become stand-ins of the next
        round's positions, in id order (the seats' shuffles make the real order)."""
        cards = tuple(sorted(pile_below_top))
        self.stock_round += 1
        for i, card in enumerate(cards):
            self.place_of[card] = (self.stock_round, i)
            self.id_at[(self.stock_round, i)] = card
        self.ledger.begin_rebuild(cards)
        self.shuffles_due = True
        return cards

    def revealed(self) -> bool:
        return all(s in self.ledger.secrets for s in self.setup.seats)

    def opened_state(self, state: deal.DealState) -> deal.DealState:
        """``state`` with every stand-in replaced by its card: every per-deal key revealed."""
        for place in sorted(self.id_at):
            if place[0] < len(self.ledger.decks):  # a rebuild not shuffled yet has no cards
                state, _ = self.open_place(state, place)
        return state

    def hand_positions(self, state: deal.DealState, seat: int) -> list[Place]:
        """The places ``seat``'s hand holds unopened, in the order held."""
        return [self.place_of[c] for c in state.hand(seat) if c in self.place_of]

    def known_hand(self, hand: tuple[int, ...]) -> list[int]:
        """The cards of a hand the host knows (public: a taken discard, say)."""
        return [c for c in hand if c not in self.place_of]


def shares_to_everyone(data: bytes) -> SharesBody | None:
    """The body of a SHARES envelope to everyone, or None for any other message."""
    env = Envelope.parse(data)
    if env.kind != Kind.SHARES:
        return None
    body = env.body()
    assert isinstance(body, SharesBody)
    return body if body.recipient == EVERYONE else None


def _swapped(state: deal.DealState, a: int, b: int) -> deal.DealState:
    """``state`` with ids ``a`` and ``b`` exchanged where they lie hidden: hands and stock."""

    def swap(cards: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(b if c == a else a if c == b else c for c in cards)

    return replace(state, hands=tuple(swap(h) for h in state.hands), stock=swap(state.stock))
