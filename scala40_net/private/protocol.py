"""One private deal: what every reader checks of it (``DealLedger``), and a seat's part in it.

The steps (docs/PRIVATE_TABLES.md, "The protocol"): every seat sends its per-deal key with
a proof of knowledge; the joint key is their sum; the deck, every card encrypted openly in
id order, is shuffled by each seat in turn from the dealer's left (the dealer last), each
shuffle proved; the cutter (R2.2) cuts the encrypted deck; positions are dealt as the
engine deals cards (R2.3: ``fairdeal.spec.deal_cards``); a card is opened to a seat by every
other seat's share, and to everyone by its owner's share too; a rebuilt stock (R10.1) is the
public discards encrypted openly and shuffled by every seat again; at the end every seat
reveals its per-deal key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from scala40_net.fairdeal.spec import DealtCards, cutter_seat, deal_cards, deal_order
from scala40_net.private.chain import ChainChecker, FaultKind, blame, seat_name
from scala40_net.private.elgamal import (
    Deck,
    UnknownCard,
    card_of,
    deck_bytes,
    joint_key,
    open_deck,
    share,
    unmask,
)
from scala40_net.private.encoding import EncodingError
from scala40_net.private.group import IDENTITY, Point, ScalarSource, base_times, random_scalar
from scala40_net.private.messages import (
    EVERYONE,
    Body,
    CutBody,
    Envelope,
    HeadsBody,
    KeyBody,
    RevealBody,
    Share,
    SharesBody,
    ShuffleBody,
    Signer,
    seal,
    setup_digest,
    signature_holds,
)
from scala40_net.private.proofs import KeyProof, ProofContext, ShareProof
from scala40_net.private.shuffle import ShuffleProof, shuffle_deck, shuffle_holds

CLASSIC_DECK = 108


@dataclass(frozen=True)
class DealSetup:
    """What every seat agrees on before the deal: the table, the deal, the seats, the dealer."""

    table_id: str
    deal_no: int
    seats: tuple[int, ...]
    dealer: int
    deck_size: int = CLASSIC_DECK

    @cached_property
    def shuffle_order(self) -> tuple[int, ...]:
        """Who shuffles, in turn: from the dealer's left, the dealer last (R2.3's order)."""
        return tuple(deal_order(self.dealer, self.seats))

    @cached_property
    def cutter(self) -> int:
        return cutter_seat(self.dealer, self.seats)

    @cached_property
    def positions(self) -> DealtCards:
        """Where each position of the cut deck goes: the engine's deal, applied to positions."""
        return deal_cards(range(self.deck_size), self.dealer, self.seats)

    def context(self, seat: int, step: bytes) -> ProofContext:
        return ProofContext(self.table_id, self.deal_no, seat, step)

    def digest(self, signing_keys: Mapping[int, bytes]) -> bytes:
        """This setup and the seats' signing keys as one digest: where every chain starts."""
        keys = {seat: signing_keys[seat] for seat in self.seats}
        return setup_digest(self.table_id, self.deal_no, self.dealer, self.deck_size, keys)


def key_step() -> bytes:
    return b"key"


def shuffle_step(round_: int, index: int) -> bytes:
    return b"shuffle/" + round_.to_bytes(2, "big") + index.to_bytes(1, "big")


def share_step(round_: int, position: int) -> bytes:
    return b"share/" + round_.to_bytes(2, "big") + position.to_bytes(2, "big")


def digest_of(deck: Deck) -> bytes:
    return hashlib.sha256(deck_bytes(deck)).digest()


@dataclass(frozen=True)
class ShuffleCheck:
    """A shuffle's proof against the deck it shuffled, to check now or later (``holds``),
    or to run raising FaultFound that names its shuffler. It pickles: a host checks it in
    a process of its own."""

    seat: int
    context: ProofContext
    joint: Point
    deck: Deck
    out: Deck
    proof: ShuffleProof

    def holds(self) -> bool:
        return shuffle_holds(self.context, self.joint, self.deck, self.out, self.proof)

    def __call__(self) -> None:
        if not self.holds():
            name = seat_name(self.seat)
            raise blame(name, FaultKind.INVALID, f"{name}'s shuffle proof does not hold: its "
                        "deck is not this deck re-encrypted and permuted")


class Phase(StrEnum):
    KEYS = "keys"
    SHUFFLING = "shuffling"
    CUTTING = "cutting"
    PLAYING = "playing"


@dataclass
class DealLedger:
    """The public state of one private deal, every message's proof checked as it is applied."""

    setup: DealSetup
    keys: dict[int, Point] = field(default_factory=dict)
    phase: Phase = Phase.KEYS
    round: int = 0
    #: Each round's deck: round 0 cut once every seat shuffled it; a rebuild's as shuffled.
    decks: list[Deck] = field(default_factory=list)
    shuffles: int = 0
    cut: int | None = None
    shares: dict[tuple[int, int], dict[int, Point]] = field(default_factory=dict)
    secrets: dict[int, int] = field(default_factory=dict)
    #: The discards a rebuild this reader expects starts from (its engine's; None: any).
    expected_rebuild: tuple[int, ...] | None = None
    #: A share to another seat than the reader is kept unchecked, its proof checked only when
    #: the reader reads it (``open_card``, once the card is opened to everyone); its
    #: recipient checks it at once anyway (docs/PRIVATE_TABLES.md, "What the host checks",
    #: "What a seat checks"). The host reads at no seat; a seat checks its own shares at once.
    defer_shares: bool = False
    #: The seat that reads this ledger (None: the host, or an auditor).
    reader: int | None = None
    #: The ``(round, position, author)`` of every share kept unchecked so far.
    unchecked: set[tuple[int, int, int]] = field(default_factory=set)
    _proofs: dict[tuple[int, int, int], ShareProof] = field(default_factory=dict, repr=False)

    @property
    def dealt(self) -> bool:
        """Whether the deal's cards are dealt (its deck shuffled by every seat and cut), so a
        seat may reveal its key at the deal's end: a rebuilt stock may still be being
        shuffled then, since a player can go out with the discard it took (R10.1)."""
        return self.phase == Phase.PLAYING or (self.phase == Phase.SHUFFLING and self.round >= 1)

    @property
    def joint_key(self) -> Point:
        return joint_key(self.keys[s] for s in sorted(self.keys))

    def apply(
        self, env: Envelope, *, own: bool = False, later: list[ShuffleCheck] | None = None
    ) -> None:
        """Check ``env``'s content against the deal so far and take it in (FaultFound).

        With ``later``, a shuffle's proof is not checked here: its check (raising FaultFound)
        is appended, for the caller to run before it acts on the deck in public."""
        author = seat_name(env.author)
        if env.author not in self.setup.seats:
            raise blame(author, FaultKind.INVALID, f"{author} does not sit at this deal")
        try:
            body: Body = env.body()
        except EncodingError as exc:
            raise blame(author, FaultKind.INVALID, f"{author} signed a message that does not "
                        f"read: {exc}") from exc
        if isinstance(body, KeyBody):
            self._key(env.author, body, own)
        elif isinstance(body, ShuffleBody):
            self._shuffle(env.author, body, own, later)
        elif isinstance(body, CutBody):
            self._cut(env.author, body)
        elif isinstance(body, SharesBody):
            self._shares(env.author, body, own)
        elif isinstance(body, RevealBody):
            self._reveal(env.author, body)
        # HEADS: the chain checker read its heads; the deal itself does not change.

    def _key(self, seat: int, body: KeyBody, own: bool) -> None:
        if self.phase != Phase.KEYS or seat in self.keys:
            raise blame(seat_name(seat), FaultKind.INVALID, f"{seat_name(seat)} sent a key "
                        "after its own or after the shuffles began")
        if body.public == IDENTITY:
            raise blame(seat_name(seat), FaultKind.INVALID, f"{seat_name(seat)}'s key is the "
                        "identity, which hides nothing")
        if not own and not body.proof.holds(self.setup.context(seat, key_step()), body.public):
            raise blame(seat_name(seat), FaultKind.INVALID,
                        f"{seat_name(seat)}'s key comes with a proof that does not hold")
        self.keys[seat] = body.public
        if len(self.keys) == len(self.setup.seats):
            self.phase = Phase.SHUFFLING
            self.decks.append(open_deck(range(self.setup.deck_size)))

    def begin_rebuild(self, cards: Sequence[int]) -> None:
        """The stock ran out (R10.1): the next shuffles start from these discards, by id."""
        if self.phase != Phase.PLAYING:
            raise ValueError("a stock is rebuilt only while the deal is played")
        self.expected_rebuild = tuple(sorted(cards))

    def _shuffle(
        self, seat: int, body: ShuffleBody, own: bool, later: list[ShuffleCheck] | None
    ) -> None:
        name = seat_name(seat)
        # Everything is checked before anything is kept: a refused shuffle changes nothing.
        round_, shuffles, phase = self.round, self.shuffles, self.phase
        if phase == Phase.PLAYING and body.round == round_ + 1 and body.index == 0:
            if len(body.cards) < 2 or len(set(body.cards)) != len(body.cards):
                raise blame(name, FaultKind.INVALID, f"{name}'s rebuilt stock is not a set of "
                            "at least two cards")
            if self.expected_rebuild is not None and body.cards != self.expected_rebuild:
                raise blame(name, FaultKind.INVALID, f"{name}'s rebuilt stock is not the "
                            "discard pile")
            if any(not 0 <= c < self.setup.deck_size for c in body.cards):
                raise blame(name, FaultKind.INVALID, f"{name}'s rebuilt stock names no card")
            round_, shuffles, phase = round_ + 1, 0, Phase.SHUFFLING
            deck = open_deck(body.cards)
        elif body.cards:
            raise blame(name, FaultKind.INVALID, f"{name} named cards in a shuffle that "
                        "starts from another's deck")
        else:
            deck = self.decks[round_] if self.decks else ()
        if phase != Phase.SHUFFLING or body.round != round_:
            raise blame(name, FaultKind.INVALID, f"{name} shuffled out of its turn")
        expected = self.setup.shuffle_order[shuffles]
        if seat != expected or body.index != shuffles:
            raise blame(name, FaultKind.INVALID, f"{name} shuffled in {seat_name(expected)}'s "
                        "turn")
        if body.input_digest != digest_of(deck):
            raise blame(name, FaultKind.INVALID, f"{name} shuffled another deck than the one "
                        "this seat holds")
        ctx = self.setup.context(seat, shuffle_step(body.round, body.index))
        check = ShuffleCheck(seat, ctx, self.joint_key, deck, body.deck, body.proof)
        if later is not None:
            later.append(check)
        elif not own:
            check()
        if round_ == len(self.decks):
            self.decks.append(body.deck)
            self.expected_rebuild = None
        else:
            self.decks[round_] = body.deck
        self.round, self.shuffles = round_, shuffles + 1
        if self.shuffles == len(self.setup.shuffle_order):
            self.phase = Phase.CUTTING if self.round == 0 else Phase.PLAYING
        else:
            self.phase = Phase.SHUFFLING

    def _cut(self, seat: int, body: CutBody) -> None:
        name = seat_name(seat)
        if self.phase != Phase.CUTTING or seat != self.setup.cutter:
            raise blame(name, FaultKind.INVALID, f"{name} cut, which is not its to do (R2.2)")
        if not 1 <= body.cut <= self.setup.deck_size - 1:
            raise blame(name, FaultKind.INVALID, f"{name}'s cut {body.cut} is not in "
                        f"[1, {self.setup.deck_size - 1}] (R2.2)")
        deck = self.decks[0]
        self.decks[0] = deck[body.cut :] + deck[: body.cut]
        self.cut = body.cut
        self.phase = Phase.PLAYING

    def _shares(self, seat: int, body: SharesBody, own: bool) -> None:
        name = seat_name(seat)
        if self.phase == Phase.KEYS or body.round >= len(self.decks) or (
            body.round == self.round and self.phase != Phase.PLAYING
        ):
            raise blame(name, FaultKind.INVALID, f"{name} sent shares of a deck not yet dealt")
        if body.recipient != EVERYONE and body.recipient not in self.setup.seats:
            raise blame(name, FaultKind.INVALID, f"{name} sent shares to nobody at the table")
        if body.recipient == seat:
            raise blame(name, FaultKind.INVALID, f"{name} sent its shares to itself")
        deck = self.decks[body.round]
        later = (
            self.defer_shares and body.recipient not in (EVERYONE, self.reader) and not own
        )
        for item in body.shares:
            if not 0 <= item.position < len(deck):
                raise blame(name, FaultKind.INVALID, f"{name} sent a share of position "
                            f"{item.position}, past the deck")
            if not own and not later:
                self._share_holds(seat, body.round, item.position, item)
        # Kept only once every share of the message holds (or is left for later).
        for item in body.shares:
            self.shares.setdefault((body.round, item.position), {})[seat] = item.share
            key = (body.round, item.position, seat)
            if later:
                self.unchecked.add(key)
                self._proofs[key] = item.proof
            elif key in self.unchecked:  # the same share again, checked this time
                self.unchecked.discard(key)
                del self._proofs[key]

    def _share_holds(self, seat: int, round_: int, position: int, item: Share) -> None:
        ct = self.decks[round_][position]
        ctx = self.setup.context(seat, share_step(round_, position))
        if not item.proof.holds(ctx, self.keys[seat], ct.a, item.share):
            name = seat_name(seat)
            raise blame(name, FaultKind.INVALID, f"{name}'s share of position "
                        f"{position} comes with a proof that does not hold")

    def check_unchecked(self, round_: int, position: int) -> None:
        """The shares of a place kept unchecked, checked now that the reader reads them; a
        seat whose key is revealed has its share made from it instead (exact, and cheaper)."""
        for seat in self.setup.seats:
            key = (round_, position, seat)
            if key not in self.unchecked:
                continue
            if seat in self.secrets:
                self.shares[(round_, position)][seat] = share(
                    self.secrets[seat], self.decks[round_][position]
                )
            else:
                held = self.shares[(round_, position)][seat]
                self._share_holds(seat, round_, position, Share(position, held, self._proofs[key]))
            self.unchecked.discard(key)
            del self._proofs[key]

    def _reveal(self, seat: int, body: RevealBody) -> None:
        name = seat_name(seat)
        if not self.dealt or seat in self.secrets:
            raise blame(name, FaultKind.INVALID, f"{name} revealed its key before the deal "
                        "was dealt, or twice")
        if base_times(body.secret) != self.keys[seat]:
            raise blame(name, FaultKind.INVALID, f"{name} revealed a key that is not the one "
                        "it shuffled with")
        self.secrets[seat] = body.secret

    def open_card(self, round_: int, position: int, mine: tuple[int, int] | None = None) -> int:
        """The card at ``position``: from every seat's share held (``mine``: a seat's own
        ``(seat, secret)`` standing in for its share). KeyError when a share is missing;
        FaultFound when a share kept unchecked (``defer_shares``) does not hold."""
        if self.unchecked:
            self.check_unchecked(round_, position)
        ct = self.decks[round_][position]
        held = dict(self.shares.get((round_, position), {}))
        for seat, secret in self.secrets.items():
            held.setdefault(seat, share(secret, ct))
        if mine is not None:
            held[mine[0]] = share(mine[1], ct)
        missing = [s for s in self.setup.seats if s not in held]
        if missing:
            raise KeyError(f"no share yet from {', '.join(seat_name(s) for s in missing)}")
        try:
            return card_of(unmask(ct, [held[s] for s in sorted(held)]), self.setup.deck_size)
        except UnknownCard as exc:
            raise blame("host", FaultKind.INVALID, "an opened card is no card of the deck, "
                        "which every shuffle proof rules out") from exc

    @property
    def next_shuffler(self) -> int:
        """The seat whose shuffle comes next: while shuffling, the next in order; before a
        rebuilt stock's first shuffle (R10.1), the first in order."""
        return self.setup.shuffle_order[self.shuffles if self.phase == Phase.SHUFFLING else 0]

    def missing_shares(self, round_: int, position: int, reader: int) -> list[int]:
        """The seats whose shares ``reader`` still needs to read ``position``."""
        held = self.shares.get((round_, position), {})
        return [s for s in self.setup.seats if s != reader and s not in held]


class PrivateSeat:
    """One seat's side of a private deal: its per-deal key, its messages, its view of the rest."""

    def __init__(
        self,
        setup: DealSetup,
        seat: int,
        signer: Signer,
        signing_keys: Mapping[int, bytes],
        draw: ScalarSource = random_scalar,
        secret: int | None = None,
    ) -> None:
        self.setup = setup
        self.seat = seat
        self._signer = signer
        self._draw = draw
        #: The per-deal key: kept on disk (0600) by the client, revealed at the deal's end.
        self.secret = secret if secret is not None else draw()
        self.public = base_times(self.secret)
        self.checker = ChainChecker(
            setup.table_id, setup.deal_no, signing_keys, setup.digest(signing_keys), me=seat
        )
        # The shares to other seats are theirs to check at once; this seat checks them once
        # it reads them (the card opened to everyone), and the audit at the deal's end.
        self.ledger = DealLedger(setup, defer_shares=True, reader=seat)

    @classmethod
    def resumed(
        cls,
        setup: DealSetup,
        seat: int,
        signer: Signer,
        signing_keys: Mapping[int, bytes],
        secret: int,
        taken_in: Sequence[bytes],
        draw: ScalarSource = random_scalar,
    ) -> PrivateSeat:
        """A seat back after a restart: its per-deal key (from disk) and every message of
        the deal it had taken in, its own among them, in order; each checked again."""
        me = cls(setup, seat, signer, signing_keys, draw, secret)
        for data in taken_in:
            env = Envelope.parse(data)
            if env.author != seat:
                me.receive(data)
                continue
            if not signature_holds(signing_keys[seat], env.signed_part(), env.signature):
                raise blame("host", FaultKind.ALTERED, f"this seat's own message {env.seq} "
                            "handed back fails its signature")
            me.ledger.apply(env)
            me.checker.record_own(env)
        mine = me.ledger.keys.get(seat)
        if mine is not None and mine != me.public:
            raise ValueError("the per-deal key kept is not the one this seat sent")
        return me

    def send(self, body: Body) -> bytes:
        """Sign ``body`` as this seat's next message, take it in and return its bytes."""
        seq, prev = self.checker.next_place(self.seat)
        env = seal(self._signer, self.setup.table_id, self.setup.deal_no, self.seat, seq, prev,
                   self.checker.heads(excluding=self.seat), body)
        self.ledger.apply(env, own=True)
        self.checker.record_own(env)
        return bytes(env)

    def receive(self, data: bytes) -> Envelope:
        """A relayed message, checked (chain, then content) and taken in; FaultFound if not."""
        env = self.checker.accept(data)
        try:
            self.ledger.apply(env)
        except Exception:
            self.checker.chains[env.author].pop()
            raise
        return env

    def key_message(self) -> bytes:
        proof = KeyProof.prove(self.setup.context(self.seat, key_step()), self.secret,
                               self.public, self._draw)
        return self.send(KeyBody(self.public, proof))

    def my_turn_to_shuffle(self) -> bool:
        ledger = self.ledger
        return ledger.phase == Phase.SHUFFLING and ledger.next_shuffler == self.seat

    def shuffle_message(self, rebuild: Sequence[int] = ()) -> bytes:
        """This seat's shuffle of the deck in hand (or, first of a rebuild, of ``rebuild``)."""
        ledger = self.ledger
        round_, index = ledger.round, ledger.shuffles
        cards: tuple[int, ...] = ()
        if rebuild:
            cards = tuple(sorted(rebuild))
            round_, index, deck = ledger.round + 1, 0, open_deck(cards)
        else:
            deck = ledger.decks[round_]
        ctx = self.setup.context(self.seat, shuffle_step(round_, index))
        out, proof = shuffle_deck(ctx, ledger.joint_key, deck, self._draw)
        return self.send(ShuffleBody(round_, index, cards, digest_of(deck), out, proof))

    def shuffle_after(self, data: bytes, pool: Executor) -> bytes:
        """Take in the shuffle just before this seat's turn and shuffle its deck at once,
        checking its proof on ``pool`` meanwhile (another core): this seat's message is
        made public only once that proof holds. If it does not, FaultFound names its author
        and nothing of either shuffle is kept."""
        ledger = self.ledger
        kept = (list(ledger.decks), ledger.round, ledger.shuffles, ledger.phase,
                ledger.expected_rebuild)
        env = self.checker.accept(data)
        checks: list[ShuffleCheck] = []
        try:
            ledger.apply(env, later=checks)
        except Exception:
            self.checker.chains[env.author].pop()
            raise
        pending = [pool.submit(check) for check in checks]

        def undo() -> None:
            self.checker.chains[env.author].pop()
            (ledger.decks, ledger.round, ledger.shuffles, ledger.phase,
             ledger.expected_rebuild) = kept

        if not self.my_turn_to_shuffle():
            try:
                for future in pending:
                    future.result()
            except Exception:
                undo()
                raise
            raise ValueError("the message taken in does not make it this seat's turn to shuffle")
        round_, index = ledger.round, ledger.shuffles
        deck = ledger.decks[round_]
        ctx = self.setup.context(self.seat, shuffle_step(round_, index))
        out, proof = shuffle_deck(ctx, ledger.joint_key, deck, self._draw)
        try:
            for future in pending:
                future.result()
        except Exception:
            undo()
            raise
        return self.send(ShuffleBody(round_, index, (), digest_of(deck), out, proof))

    def cut_message(self, cut: int) -> bytes:
        return self.send(CutBody(cut))

    def shares_message(self, round_: int, positions: Sequence[int], recipient: int) -> bytes:
        """This seat's shares of ``positions``, opening them to ``recipient`` (or EVERYONE)."""
        deck = self.ledger.decks[round_]
        items = []
        for position in positions:
            ct = deck[position]
            d = share(self.secret, ct)
            ctx = self.setup.context(self.seat, share_step(round_, position))
            items.append(Share(position, d, ShareProof.prove(ctx, self.secret, self.public,
                                                             ct.a, d, self._draw)))
        return self.send(SharesBody(round_, recipient, tuple(items)))

    def reveal_message(self) -> bytes:
        return self.send(RevealBody(self.secret))

    def heads_message(self) -> bytes:
        """What this seat has seen of every chain, to ask for (or to answer) a message due."""
        return self.send(HeadsBody())

    def read_card(self, round_: int, position: int) -> int:
        """A card opened to this seat: the others' shares and its own (KeyError if one lacks)."""
        return self.ledger.open_card(round_, position, mine=(self.seat, self.secret))

    def hand_positions(self) -> list[int]:
        """The positions of the cut deck dealt to this seat."""
        return self.setup.positions.hands[self.seat]
