"""One seat's part in a private deal, played without its player doing anything.

A ``PrivateParticipant`` wraps the seat's ``PrivateSeat`` (docs/PRIVATE_TABLES.md, "The
protocol") for one deal. It is handed every relayed envelope and every deal event that
concerns the protocol (a draw from the stock, a rebuilt stock, the deal's end) and says
what the seat must send, in order: its key (kept on disk first), its shuffle when its
turn comes (the shuffle before it checked on a second thread meanwhile, R2.3's order),
the cut when it is the cutter (R2.2), its shares of every card dealt or drawn to another
seat and of the first discard, its ``REVEAL`` at the end, and a ``HEADS`` message when it
has waited a few seconds on a message due (or to answer another seat's). What it decides
is a function of the deal's state, never of how often it was asked, so asking again after
a restart sends nothing twice.

It keeps the seat's hand as cards (the positions dealt and drawn to it, read as soon as
the other seats' shares are in) and names a play's cards by their positions. Every
message the seat makes is written to disk before it is handed out (``<deal>.sent``, beside
the per-deal key ``<deal>.key``, 0600), so that a seat restarted mid-deal resumes from its
key, the messages the host hands back and its own not yet relayed, and sends those again
unchanged rather than signing a second message at the same place of its chain (which
every other seat would take for an equivocation).

A fault the checker names becomes a sentence in the player's language (``fault_sentence``)
naming the seat or the host; a seat that waited on a message past a ``HEADS`` without an
answer names "seat N or the host" (``waiting_sentence``): either may be silent.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scala40_net.private.chain import HOST, Fault, FaultFound, FaultKind
from scala40_net.private.encoding import EncodingError, Reader, Writer
from scala40_net.private.keyfile import load_deal_key, save_deal_key
from scala40_net.private.messages import EVERYONE, Envelope, Kind, Signer, table_code
from scala40_net.private.protocol import DealSetup, Phase, PrivateSeat
from scala40_net.refusals import N_, translations
from scala40_net.secretfile import append_private, write_secret

#: Seconds a seat waits on a message due before it sends its ``HEADS``.
HEADS_AFTER = 3.0

#: A card of the seat's hand: ``(round, position)`` of the deck it was dealt or drawn from.
Position = tuple[int, int]


def random_cut(deck_size: int) -> int:
    """A cut in ``[1, N-1]`` (R2.2), for a seat whose player does not choose one."""
    return 1 + secrets.randbelow(deck_size - 1)


def deal_folder(data_dir: Path, table_id: str) -> Path:
    """``private/<table_id>/`` of a data dir: the table's per-deal keys and messages."""
    return data_dir / "private" / urllib.parse.quote(table_id, safe="")


def key_path(folder: Path, deal_no: int) -> Path:
    return folder / f"{deal_no}.key"


def sent_path(folder: Path, deal_no: int) -> Path:
    return folder / f"{deal_no}.sent"


def forget_deals(folder: Path, before: int) -> None:
    """Remove the per-deal keys and messages of every deal numbered below ``before``, and the
    folder once it is empty. A deal that has ended is never resumed, and its key was revealed
    to everyone (or the deal was void): keeping it would only fill the data dir, deal after
    deal. A file that cannot be removed is left for the next deal to try again."""
    try:
        names = [entry.name for entry in os.scandir(folder)]
    except OSError:  # no folder yet (a seat that kept nothing), or unreadable
        return
    for name in names:
        number, dot, kind = name.partition(".")
        if dot and kind in ("key", "sent") and number.isdigit() and int(number) < before:
            with contextlib.suppress(OSError):
                (folder / name).unlink()
    with contextlib.suppress(OSError):  # not empty (the deal in play, or a file left)
        folder.rmdir()


def read_sent(path: Path) -> list[bytes]:
    """The seat's own messages kept at ``path``, in order; a last one cut short by a crash
    (it was never handed out) is left out."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    kept: list[bytes] = []
    reader = Reader(data)
    while True:
        try:
            kept.append(reader.blob())
        except EncodingError:
            return kept


def write_sent(path: Path, messages: Iterable[bytes]) -> None:
    """Keep ``messages`` at ``path`` as a seat's own, in order (0600, synced, ``read_sent``
    reads them): the messages a seat handed to a stand-in had sent (host.table.stand_in)."""
    writer = Writer()
    for message in messages:
        writer.blob(message)
    write_secret(path, bytes(writer))


@dataclass
class Step:
    """What one input made the seat do: the messages to send, in order, and a fault found."""

    sends: list[bytes] = field(default_factory=list)
    fault: Fault | None = None


class PrivateParticipant:
    """One seat of one private deal: its ``PrivateSeat``, its hand, what it owes the others."""

    def __init__(
        self,
        seat: PrivateSeat,
        folder: Path | None,
        *,
        pool: Executor | None = None,
        choose_cut: Callable[[int], int | None] = random_cut,
        clock: Callable[[], float] = time.monotonic,
        heads_after: float = HEADS_AFTER,
    ) -> None:
        self.private = seat
        self.setup = seat.setup
        self.me = seat.seat
        self.folder = folder
        self._pool = pool
        self._own_pool: ThreadPoolExecutor | None = None
        self._choose_cut = choose_cut
        self._cut: int | None = None
        self._clock = clock
        self.heads_after = heads_after
        #: Draws from the stock the host announced: ``(drawer, round, position)``.
        self.draws: list[tuple[int, int, int]] = []
        #: The discards a rebuilt stock starts from, while its shuffles are to come (R10.1).
        self._rebuild: tuple[int, ...] | None = None
        self._rebuild_round = 0
        self._started = False  # its key is on disk: it may send
        self.over = False
        #: The seat's hand: its positions (the card once read) and the public cards taken.
        self.held: dict[Position, int | None] = {
            (0, p): None for p in self.setup.positions.hands.get(self.me, [])
        }
        self.public_cards: list[int] = []
        self.faults: list[Fault] = []
        self._progress_at = clock()
        self._heads_sent = False

    # Making one.

    @classmethod
    def fresh(
        cls,
        setup: DealSetup,
        seat: int,
        signer: Signer,
        signing_keys: Mapping[int, bytes],
        folder: Path | None,
        **options: Any,
    ) -> PrivateParticipant:
        """A seat new to the deal, its per-deal key drawn now."""
        return cls(PrivateSeat(setup, seat, signer, signing_keys), folder, **options)

    @classmethod
    def resumed(
        cls,
        setup: DealSetup,
        seat: int,
        signer: Signer,
        signing_keys: Mapping[int, bytes],
        folder: Path,
        taken_in: Sequence[bytes],
        **options: Any,
    ) -> tuple[PrivateParticipant, list[bytes]]:
        """A seat back after a restart: its per-deal key and own messages from ``folder``,
        and the deal's messages the host handed back (its own among them), each checked
        again. Returns it and what it must send now: its own messages the host never
        relayed, unchanged, then whatever is due."""
        secret = load_deal_key(key_path(folder, setup.deal_no))
        kept = read_sent(sent_path(folder, setup.deal_no))
        handed_back = sum(1 for data in taken_in if Envelope.parse(data).author == seat)
        if handed_back > len(kept):
            raise FaultFound(
                Fault(
                    HOST,
                    FaultKind.INVALID,
                    f"the host handed back "
                    f"{handed_back} messages of this seat, which sent "
                    f"{len(kept)}",
                )
            )
        unrelayed = kept[handed_back:]
        private = PrivateSeat.resumed(
            setup, seat, signer, signing_keys, secret, [*taken_in, *unrelayed]
        )
        me = cls(private, folder, **options)
        me._started = True
        for data in taken_in:
            me._note(Envelope.parse(data))
        me._read_hand()
        return me, [*unrelayed, *me._due()]

    @classmethod
    def joined(
        cls,
        setup: DealSetup,
        seat: int,
        signer: Signer,
        signing_keys: Mapping[int, bytes],
        folder: Path,
        taken_in: Sequence[bytes] = (),
        **options: Any,
    ) -> tuple[PrivateParticipant, list[bytes]]:
        """The seat at this deal from where it stands: resumed when its key is on disk
        (a restart), else fresh, its key kept and then sent. Returns what to send now."""
        if key_path(folder, setup.deal_no).exists():
            return cls.resumed(setup, seat, signer, signing_keys, folder, taken_in, **options)
        me = cls.fresh(setup, seat, signer, signing_keys, folder, **options)
        sends = me.start()
        for data in taken_in:
            sends += me.receive(data).sends
        return me, sends

    # Inputs.

    def start(self) -> list[bytes]:
        """The seat's first message: its key, written to disk (0600, synced) first."""
        if self.folder is not None:
            save_deal_key(key_path(self.folder, self.setup.deal_no), self.private.secret)
        self._started = True
        return self._due()

    def has(self, data: bytes) -> bool:
        """Whether this envelope is one the seat has already taken in (or wrote)."""
        try:
            env = Envelope.parse(data)
        except EncodingError:
            return False
        chain = self.private.checker.chains.get(env.author, [])
        return env.seq < len(chain) and chain[env.seq].digest == env.digest

    def receive(self, data: bytes) -> Step:
        """One relayed envelope, checked; what the seat sends because of it."""
        step = Step()
        try:
            env = Envelope.parse(data)
        except EncodingError:
            env = None
        try:
            if env is not None and self._shuffle_before_mine(env):
                step.sends.append(self._kept(self.private.shuffle_after(data, self._executor())))
            else:
                env = self.private.receive(data)
        except FaultFound as found:
            self.faults.append(found.fault)
            step.fault = found.fault
            return step
        if env is not None:
            self._note(env)
            if env.kind == Kind.HEADS and self._answers_heads():
                step.sends.append(self._kept(self.private.heads_message()))
        self._read_hand()
        step.sends += self._due()
        return step

    def drawn(self, drawer: int, round_: int, position: int) -> list[bytes]:
        """The host's draw from the stock: ``position`` of deck ``round_`` to ``drawer``; for
        another's draw, this seat's share of it goes to the drawer at once."""
        if (drawer, round_, position) not in self.draws:
            self.draws.append((drawer, round_, position))
        if drawer == self.me:
            self.held.setdefault((round_, position), None)
            self._progress_at, self._heads_sent = self._clock(), False
            self._read_hand()
        return self._due()

    def took_public(self, card: int) -> None:
        """A card already public taken into the hand (the discard pile's, R3)."""
        self.public_cards.append(card)

    def rebuilt(self, discards: Iterable[int], rebuild_no: int | None = None) -> list[bytes]:
        """The stock ran out (R10.1): the discard pile but its top card, shuffled again by
        every seat; the first in the order starts from these cards. ``rebuild_no`` (1 for
        the deal's first): a rebuild told again (a snapshot's events) changes nothing."""
        ledger = self.private.ledger
        round_ = ledger.round + 1 if rebuild_no is None else rebuild_no
        if round_ <= ledger.round or round_ <= self._rebuild_round:
            return self._due()  # shuffled already, or announced already
        cards = tuple(sorted(discards))
        if ledger.phase == Phase.PLAYING:
            ledger.begin_rebuild(cards)
        self._rebuild, self._rebuild_round = cards, round_
        return self._due()

    def cut(self, cut: int) -> list[bytes]:
        """The cutter's player chose ``cut`` (R2.2)."""
        self._cut = cut
        return self._due()

    def deal_over(self) -> list[bytes]:
        """The deal ended: the seat reveals its per-deal key."""
        self.over = True
        return self._due()

    def tick(self) -> list[bytes]:
        """Called now and then: a ``HEADS`` once the seat has waited ``heads_after`` seconds
        on a message due, so that one the host withholds shows in the answers."""
        if not self.waiting_on() or self._heads_sent:
            return []
        if self._clock() - self._progress_at < self.heads_after:
            return []
        self._heads_sent = True
        return [self._kept(self.private.heads_message())]

    def shuffled(self) -> bool:
        """Whether every deck of the deal so far is shuffled: the deal is being played, and
        no rebuilt stock (R10.1) waits for a seat's shuffle."""
        return self.private.ledger.phase == Phase.PLAYING and not self._rebuilding

    def waited(self, seconds: float) -> bool:
        """Whether nothing of the deal has come for ``seconds``."""
        return self._clock() - self._progress_at >= seconds

    # The hand.

    def hand(self) -> list[int]:
        """The cards of the seat's hand read so far, then the public ones it took."""
        return [card for card in self.held.values() if card is not None] + self.public_cards

    def unread(self) -> list[Position]:
        """Positions of the seat's hand whose card is not yet read (a share missing)."""
        return [p for p, card in self.held.items() if card is None]

    def positions_of(self, cards: Iterable[int], strict: bool = True) -> list[Position | None]:
        """A play's cards named as the contract names them: each by its position in the
        seat's hand, None for a public card it took (KeyError: not in the hand, unless not
        ``strict``: a joker a play swaps off the table into the hand, say, is None too)."""
        used: set[Position] = set()
        public = list(self.public_cards)
        named: list[Position | None] = []
        for card in cards:
            found = next((p for p, c in self.held.items() if c == card and p not in used), None)
            if found is not None:
                used.add(found)
                named.append(found)
            elif card in public or not strict:
                if card in public:
                    public.remove(card)
                named.append(None)
            else:
                raise KeyError(f"card {card} is not in this seat's hand")
        return named

    def open_message(self, positions: Iterable[Position | None]) -> list[bytes]:
        """The seat's shares to everyone of its cards at ``positions`` (laid, attached,
        swapped or discarded: they become public), one message a round; none for a card
        already opened."""
        by_round: dict[int, list[int]] = {}
        for place in positions:
            if place is None or place not in self.held:
                continue
            round_, position = place
            if self.me not in self.private.ledger.shares.get(place, {}):
                by_round.setdefault(round_, []).append(position)
        return [
            self._kept(self.private.shares_message(r, sorted(set(ps)), EVERYONE))
            for r, ps in sorted(by_round.items())
        ]

    def played(self, cards: Iterable[int]) -> None:
        """The host took the play: its cards leave the hand."""
        cards = list(cards)
        for card, place in zip(cards, self.positions_of(cards), strict=True):
            if place is None:
                self.public_cards.remove(card)
            else:
                del self.held[place]

    def keep_only(self, positions: Iterable[Position], public_cards: Iterable[int] = ()) -> None:
        """The hand as the host has it (after a restart): these positions and public cards."""
        kept = set(positions)
        self.held = {p: self.held.get(p) for p in sorted(kept)}
        self.public_cards = list(public_cards)
        self._read_hand()

    def opened(self, round_: int, position: int) -> int | None:
        """The card at a position opened to everyone (or to this seat), if it is."""
        try:
            return self.private.ledger.open_card(round_, position)
        except KeyError:
            return None

    @property
    def table_code(self) -> str:
        """The code from every seat's signing key, for the players to compare aloud."""
        return table_code(self.setup.table_id, dict(self.private.checker.keys))

    # What is due.

    def waiting_on(self) -> list[int]:
        """The seats whose message this seat needs now, to go on."""
        ledger, setup = self.private.ledger, self.setup
        if ledger.phase == Phase.KEYS:
            return [s for s in setup.seats if s not in ledger.keys and s != self.me]
        if ledger.phase == Phase.CUTTING:
            return [] if setup.cutter == self.me else [setup.cutter]
        if ledger.phase == Phase.SHUFFLING or self._rebuilding:
            turn = ledger.next_shuffler
            return [] if turn == self.me else [turn]
        waiting: set[int] = set()
        for round_, position in self.unread():
            waiting.update(ledger.missing_shares(round_, position, self.me))
        if self.over:
            waiting.update(s for s in setup.seats if s not in ledger.secrets and s != self.me)
        return sorted(waiting)

    def _due(self) -> list[bytes]:
        sends: list[bytes] = []
        private, ledger, setup = self.private, self.private.ledger, self.setup
        if not self._started:
            return sends
        if ledger.phase == Phase.KEYS and self.me not in ledger.keys:
            sends.append(self._kept(private.key_message()))
        # A deal that ended while its rebuilt stock was shuffled (a player went out with the
        # discard it took, R10.1) needs no more shuffles: only the reveals.
        if not self.over:
            rebuild_first = self._rebuilding and setup.shuffle_order[0] == self.me
            if rebuild_first and ledger.phase == Phase.PLAYING:
                sends.append(self._kept(private.shuffle_message(self._rebuild or ())))
            if private.my_turn_to_shuffle():
                sends.append(self._kept(private.shuffle_message()))
        if ledger.phase == Phase.CUTTING and setup.cutter == self.me:
            if self._cut is None:
                self._cut = self._choose_cut(setup.deck_size)
            if self._cut is not None:
                sends.append(self._kept(private.cut_message(self._cut)))
        if ledger.phase != Phase.KEYS:
            sends += self._shares_due()
        if self.over and self.me not in ledger.secrets and ledger.dealt:
            sends.append(self._kept(private.reveal_message()))
        return sends

    def _shares_due(self) -> list[bytes]:
        ledger, setup = self.private.ledger, self.setup
        owed: dict[tuple[int, int], list[int]] = {}  # (round, recipient) -> positions
        for seat, positions in setup.positions.hands.items():
            if seat != self.me:
                for p in positions:
                    owed.setdefault((0, seat), []).append(p)
        owed.setdefault((0, EVERYONE), []).append(setup.positions.first_discard)
        for drawer, round_, position in self.draws:
            if drawer != self.me:
                owed.setdefault((round_, drawer), []).append(position)
        sends = []
        for (round_, recipient), positions in owed.items():
            if round_ >= len(ledger.decks) or (
                round_ == ledger.round and ledger.phase != Phase.PLAYING
            ):
                continue
            missing = [p for p in positions if self.me not in ledger.shares.get((round_, p), {})]
            if missing:
                sends.append(self._kept(self.private.shares_message(round_, missing, recipient)))
        return sends

    # Helpers.

    def _shuffle_before_mine(self, env: Envelope) -> bool:
        """Whether ``env`` is the shuffle just before this seat's, in the turn it claims."""
        if env.kind != Kind.SHUFFLE or self.over:  # over: no more shuffles (R10.1, _due)
            return False
        ledger, order = self.private.ledger, self.setup.shuffle_order
        if env.author == self.me or self.me not in order:
            return False
        if ledger.phase == Phase.SHUFFLING:
            index = ledger.shuffles
        elif ledger.phase == Phase.PLAYING and self._rebuilding:
            index = 0
        else:
            return False
        return order[index] == env.author and index + 1 < len(order) and order[index + 1] == self.me

    @property
    def _rebuilding(self) -> bool:
        """A rebuilt stock announced whose first shuffle has not come yet."""
        return self._rebuild is not None and self.private.ledger.round < self._rebuild_round

    def _executor(self) -> Executor:
        if self._pool is not None:
            return self._pool
        if self._own_pool is None:
            self._own_pool = ThreadPoolExecutor(1, thread_name_prefix="private-check")
        return self._own_pool

    def close(self) -> None:
        """The seat's second thread, if it made one, ends."""
        if self._own_pool is not None:
            self._own_pool.shutdown(wait=False)
            self._own_pool = None

    def _note(self, env: Envelope) -> None:
        """A message taken in: a deal step (not a ``HEADS``) is progress; a rebuild's
        first shuffle ends the wait for it."""
        if env.kind != Kind.HEADS:
            self._progress_at, self._heads_sent = self._clock(), False

    def _answers_heads(self) -> bool:
        """Another seat asks what everyone has seen: this seat answers when it has written
        something since its own last ``HEADS`` (so two asks never answer each other)."""
        own = self.private.checker.chains[self.me]
        return bool(own) and own[-1].kind != Kind.HEADS

    def _read_hand(self) -> None:
        for place, card in self.held.items():
            if card is None:
                with contextlib.suppress(KeyError, IndexError):
                    self.held[place] = self.private.read_card(*place)

    def _kept(self, message: bytes) -> bytes:
        """A message of this seat's, on disk before anyone is handed it."""
        if self.folder is not None:
            fd = append_private(sent_path(self.folder, self.setup.deal_no))
            try:
                os.write(fd, bytes(Writer().blob(message)))
            finally:
                os.close(fd)
        return message


# The sentences a fault becomes, by its kind (the checker's detail stays in the log).
FAULT_SENTENCES = {
    FaultKind.ALTERED: N_(
        "Private table: {culprit} altered a message of the deal (its signature fails)."
    ),
    FaultKind.FOREIGN: N_("Private table: {culprit} relayed a message of another table or deal."),
    FaultKind.REPLAYED: N_("Private table: {culprit} relayed a message a second time."),
    FaultKind.MISSING: N_(
        "Private table: {culprit} withheld a message, or relayed it out of order."
    ),
    FaultKind.EQUIVOCATED: N_(
        "Private table: {culprit} signed two different messages at one place of its chain."
    ),
    FaultKind.DIVERGED: N_("Private table: {culprit} showed the seats different messages."),
    FaultKind.INVALID: N_(
        "Private table: {culprit} sent a message that breaks the protocol "
        "(a proof or share that does not hold, or a step out of turn)."
    ),
}
THE_HOST = N_("the host")
SEAT_N = N_("seat {n}")
SEAT_OR_HOST = N_("seat {n} or the host")
WAITING = N_("Private table: waiting for {who}: a message due has not come.")
AND = N_(", ")


def culprit_text(culprit: str, lang: str) -> str:
    """``host`` or ``seat N`` in ``lang``."""
    t = translations(lang)
    if culprit == HOST:
        return t.gettext(THE_HOST)
    return t.gettext(SEAT_N).format(n=culprit.removeprefix("seat "))


def fault_sentence(fault: Fault, lang: str) -> str:
    """A fault the checker found, as the player reads it, naming who is to blame."""
    t = translations(lang)
    return t.gettext(FAULT_SENTENCES[fault.kind]).format(culprit=culprit_text(fault.culprit, lang))


def waiting_sentence(seats: Sequence[int], lang: str) -> str:
    """A wait on messages that did not come, past a ``HEADS``: their seats or the host
    may be silent, and the seat cannot tell which."""
    t = translations(lang)
    who = t.gettext(AND).join(t.gettext(SEAT_OR_HOST).format(n=s) for s in seats)
    return t.gettext(WAITING).format(who=who)
