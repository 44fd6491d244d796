"""Private tables over real gRPC (docs/PRIVATE_TABLES.md): a host that relays and checks the
seats' messages, deals positions, reads a card only once its owner opens it, and ends the
deal once every seat revealed; its record audited and replayed by ``scala40-verify``."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, bearer, start_host, until
from hostproc import HostProcess, free_port
from keyed_match import keyed_join
from private_participant import (
    Participant,
    mid_shuffle,
    play_all,
    private_table,
    quick_rules,
    start_playing,
    stop_all,
)

from host.journal.sqlite import SUFFIX, TABLES_FOLDER
from host.table import shuffle_checks
from scala40_net import verifier
from scala40_net.cards import face
from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.pb import deal_pb2, lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc
from scala40_net.players import PlayerKey
from scala40_net.private.messages import Ed25519Signer, Envelope, Kind
from scala40_net.private.protocol import PrivateSeat
from scala40_net.seat.link import GrpcTable
from scala40_net.seat.private_link import setup_of


async def deal_to_its_end(
    served: HostClient, seats: int, decks: int,
    meanwhile: Callable[[list[Participant]], Awaitable[None]] | None = None,
    deals: int = 1,
    streams: bool = False,
) -> tuple[str, list[Participant]]:
    """``deals`` private deals played by ``seats`` in-test seats to their signed ends
    (``meanwhile`` run while the first is played); ``streams``: each seat's messages and
    moves on its own stream, as the screen and ``scala40-bot`` send them."""
    table_id, people = await private_table(served.lobby, served.table, seats, quick_rules(decks))
    for p in people:
        p.link = GrpcTable(served.channel, p.token) if streams else None
    tasks = await start_playing(served.lobby, table_id, people)
    if meanwhile is not None:
        await meanwhile(people)
    await until(lambda: all(deals in p.signed for p in people), 120 * deals,
                lambda: f"refusals {[p.refusals for p in people]}")
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return table_id, people


def record_verifies(
    tmp_path: Path, record: bytes, name: str, capsys: pytest.CaptureFixture[str]
) -> str:
    """``scala40-verify`` on the record: the audit of every message, then the replay."""
    path = tmp_path / name
    path.write_bytes(record)
    capsys.readouterr()
    assert verifier.main([str(path)]) == 0
    line = capsys.readouterr().out
    assert line.startswith("verified:") and ", private, " in line and "replay ok" in line, line
    assert DealRecord.from_json(record).private_transcript
    return line


def opened_by(public: deal_pb2.DealEvent) -> set[int]:
    """The cards a public deal event shows everyone: the first discard, a discard drawn,
    the cards laid and discarded."""
    found: set[int] = set()
    which = public.WhichOneof("event")
    if which == "started":
        found.add(public.started.first_discard)
    elif which == "drawn" and public.drawn.HasField("card"):
        found.add(public.drawn.card)
    elif which == "played":
        for op in public.played.operations:
            kind = op.WhichOneof("operation")
            found.update(
                getattr(op, kind).cards if kind != "swap_joker" else [op.swap_joker.card]
            )
        if public.played.HasField("discard"):
            found.add(public.played.discard)
    return found


def cards_of(event: table_pb2.TableEvent) -> set[int]:
    """Every card id a stream message names, wherever it lies."""
    found: set[int] = set()
    if event.HasField("deal"):
        public = deal_pb2.DealEvent.FromString(event.deal.public_event)
        found |= opened_by(public)
        for hand in public.ended.hands:
            found.update(hand.cards)
        private = event.deal.private_event
        found.update(private.hand_dealt.cards)
        if private.HasField("stock_card_drawn"):
            found.add(private.stock_card_drawn.card)
    if event.HasField("snapshot"):
        found.update(event.snapshot.my_hand)
    return found


def audit_events(events: list[table_pb2.TableEvent]) -> int:
    """No event names a card before everyone saw it opened (or before the deal's end): the
    host never learns a hidden card, so it can send or keep none. The deals checked."""
    public: set[int] = set()
    checked = 0
    for event in events:
        if event.HasField("deal"):
            dealt = deal_pb2.DealEvent.FromString(event.deal.public_event)
            which = dealt.WhichOneof("event")
            if which == "announced":
                public = set()
            if which == "ended":
                checked += 1
                continue  # every per-deal key is revealed: the whole deal is open
            public |= opened_by(dealt)
        named = cards_of(event) - public
        assert not named, f"event {event.seq} names cards {sorted(named)} nobody had opened"
    return checked


def audit_stream(messages: list[bytes]) -> int:
    return audit_events(
        [table_pb2.SubscribeEventsResponse.FromString(m).event for m in messages]
    )


def audit_views(views: list[bytes], messages: list[bytes]) -> None:
    """A seat's views name no card of a hand but the public ones (the host knows no other)."""
    public_at: dict[int, set[int]] = {}
    public: set[int] = set()
    for data in messages:
        event = table_pb2.SubscribeEventsResponse.FromString(data).event
        if event.HasField("deal"):
            public |= opened_by(deal_pb2.DealEvent.FromString(event.deal.public_event))
        public_at[event.seq] = set(public)
    for data in views:
        view = table_pb2.GetViewResponse.FromString(data)
        known = public_at.get(view.seq, public)
        shown = set(view.view.my_hand) | set(view.view.discard_pile)
        for meld in view.view.melds:
            shown.update(meld.cards)
        assert shown <= known, f"a view names {sorted(shown - known)}, opened to nobody"
        assert view.view.my_positions, "a private hand is shown as its positions"
        for private in view.view.my_private_events:
            assert not private.hand_dealt.cards and not private.HasField("stock_card_drawn")


def audit_journal(path: Path) -> int:
    """What the journal file keeps: no private event with a card, and no card in its events
    before everyone saw it opened. The deals checked."""
    db = sqlite3.connect(path)
    try:
        events = [
            table_pb2.TableEvent.FromString(row[0])
            for row in db.execute("SELECT public FROM events ORDER BY seq")
        ]
        for (blob,) in db.execute("SELECT event FROM private_events"):
            private = deal_pb2.PrivateDealEvent.FromString(blob)
            assert not private.hand_dealt.cards and not private.HasField("stock_card_drawn")
    finally:
        db.close()
    return audit_events(events)


@pytest.mark.timeout(240)
async def test_a_two_seat_private_deal_is_played_to_its_end_and_its_record_verifies(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Also: a seat that sends another seat's message is refused (a seat sends only as
    itself); a message sent again unchanged is answered as the first time, relayed once."""
    again: list[tuple[bytes, int, int]] = []

    async def meddle(people: list[Participant]) -> None:
        ann, bob = people
        await until(lambda: bool(bob.acked))
        key = bob.acked[0]
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await served.table.SendPrivate(
                table_pb2.SendPrivateRequest(context=ann.context(), envelope=key),
                metadata=ann.metadata,
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "sends only as itself" in (refused.value.details() or "")
        answer = await served.table.SendPrivate(
            table_pb2.SendPrivateRequest(context=bob.context(), envelope=key),
            metadata=bob.metadata,
        )
        again.append((key, bob.placed[key], answer.transcript_seq))

    _table_id, people = await deal_to_its_end(served, 2, 1, meddle, deals=2)
    [(_key, first, second)] = again
    assert first == second
    relayed = [
        event.private_message.seq
        for data in people[0].received
        if (event := table_pb2.SubscribeEventsResponse.FromString(data).event).HasField(
            "private_message"
        )
        and event.private_message.deal_no == 1
    ]
    assert relayed.count(first) == 1, "a message sent again was relayed twice"
    for p in people:
        assert not p.refusals
        for deal_no in (1, 2):  # the second deal dealt afresh after the first's end
            record = await served.table.GetDealRecord(
                table_pb2.GetDealRecordRequest(deal_no=deal_no), metadata=p.metadata
            )
            print(record_verifies(tmp_path, record.record, f"deal-{p.seat}-{deal_no}.json",
                                  capsys))
        assert audit_stream(p.received) >= 2


async def test_a_private_deal_on_the_seats_own_streams_ends_signed_and_its_record_verifies(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every message and move on the seat's stream (``TableService.Seat``), each answered
    there, as the screen and ``scala40-bot`` send theirs: the deal is played to its end as
    by calls."""
    _table_id, people = await deal_to_its_end(served, 2, 1, streams=True)
    for p in people:
        assert not p.refusals
        assert p.link is not None and p.link.seat_stream  # the host served the seat's stream
        assert p.on_stream >= len(p.acked) > 10, (p.on_stream, len(p.acked))
        record = await served.table.GetDealRecord(
            table_pb2.GetDealRecordRequest(deal_no=1), metadata=p.metadata
        )
        record_verifies(tmp_path, record.record, f"deal-{p.seat}.json", capsys)
        assert audit_stream(p.received) >= 1


async def restarted(host: HostProcess, people: list[Participant],
                    tasks: list[asyncio.Task[None]]) -> list[asyncio.Task[None]]:
    """SIGKILL the host, start it again on its data dir; every seat follows it again from a
    snapshot (its part of the deal rebuilt from the transcript the host kept)."""
    await host.kill()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await host.start()
    assert host.channel is not None
    stub = table_pb2_grpc.TableServiceStub(host.channel)
    for p in people:
        p.table = stub
    return play_all(people)


@pytest.mark.long(30)
@pytest.mark.timeout(300)
async def test_a_host_killed_during_the_shuffle_and_during_a_draw_loses_nothing_acknowledged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = HostProcess(tmp_path / "host", free_port())
    await host.start()
    try:
        assert host.channel is not None
        lobby = lobby_pb2_grpc.LobbyServiceStub(host.channel)
        table_id, people = await private_table(
            lobby, table_pb2_grpc.TableServiceStub(host.channel), 2, quick_rules(1),
            turn_seconds=0, grace_seconds=600,
        )
        tasks = await start_playing(lobby, table_id, people)
        await until(lambda: mid_shuffle(people), 60)
        tasks = await restarted(host, people, tasks)
        await until(lambda: people[0].draws_seen >= 3, 60)
        tasks = await restarted(host, people, tasks)
        await until(lambda: all(1 in p.signed for p in people), 120,
                    lambda: f"refusals {[p.refusals for p in people]}")
        assert all(p.resumed >= 2 for p in people)
        for p in people:
            p.stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert host.channel is not None
        record = await table_pb2_grpc.TableServiceStub(host.channel).GetDealRecord(
            table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[0].metadata
        )
        record_verifies(tmp_path, record.record, "deal.json", capsys)
        transcript = set(DealRecord.from_json(record.record).private_transcript)
        for p in people:
            acknowledged = {m for m in p.acked if Envelope.parse(m).deal_no == 1}
            assert acknowledged <= transcript, "an acknowledged message was lost"
    finally:
        await host.stop()


@pytest.mark.long(40)
@pytest.mark.timeout(400)
async def test_a_four_seat_private_deal_shows_no_hidden_card_to_anyone_nor_keeps_one(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The privacy audit: the journal file, every seat's stream and views, a spectator's
    stream and the host's log name no card before it is opened; the host holds no hidden
    place it could open (the owner's share never reached it); the record verifies."""
    caplog.set_level(logging.DEBUG)
    table_id, people = await private_table(served.lobby, served.table, 4, quick_rules(2))
    watch = await served.lobby.SpectateTable(lobby_pb2.SpectateTableRequest(table_id=table_id))
    spectator = Participant(served.table, table_id, -1, watch.spectator_token, play_turns=False)
    tasks = [*play_all(people), asyncio.create_task(spectator.run())]
    await until(lambda: all(p.received for p in [*people, spectator]))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
    )
    task = served.host.registry.tables[table_id]
    holds_nothing_hidden = []

    def mid_deal() -> bool:
        current = task.table.state.current
        if current is None or current.private is None or not current.private.started:
            return False
        secret = current.private
        if len(secret.id_at) < 100:  # a few turns played
            holds_nothing_hidden.append(not any(secret.owner_opened(p) for p in secret.id_at))
            return True
        return False

    await until(mid_deal, 120)
    await until(lambda: all(1 in p.signed for p in [*people, spectator]), 240,
                lambda: f"refusals {[p.refusals for p in people]}")
    for p in [*people, spectator]:
        p.stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert holds_nothing_hidden == [True]
    record = await served.table.GetDealRecord(
        table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[0].metadata
    )
    record_verifies(tmp_path, record.record, "deal.json", capsys)
    for p in people:
        assert not p.refusals
        assert audit_stream(p.received) == 1
        assert len(p.views) == 2
        audit_views(p.views, p.received)
    assert audit_stream(spectator.received) == 1
    journal = served.host.data_dir / TABLES_FOLDER / f"{table_id}{SUFFIX}"
    assert audit_journal(journal) == 1
    # The host's log: no sentence names a card (it knows none it could name but public ones).
    named = {str(face(c)) for c in range(108)}
    for line in caplog.messages:
        assert not any(f" {n} " in f" {line} " for n in named), line


def test_the_privacy_audit_catches_a_card_named_before_it_is_opened() -> None:
    """The audits above can fail: a hand's card in a private event, or a stand-in id shown."""
    announced = deal_pb2.DealEvent(table_id="t", deal_no=1, announced=deal_pb2.DealAnnounced())
    started = deal_pb2.DealEvent(
        table_id="t", deal_no=1, started=deal_pb2.DealStarted(first_discard=7)
    )
    events = [
        table_pb2.TableEvent(seq=1, deal=table_pb2.DealEventEnvelope(
            public_event=announced.SerializeToString())),
        table_pb2.TableEvent(seq=2, deal=table_pb2.DealEventEnvelope(
            public_event=started.SerializeToString())),
    ]
    assert audit_events(events) == 0  # the first discard is public
    leaked = table_pb2.TableEvent()
    leaked.CopyFrom(events[1])
    leaked.deal.private_event.hand_dealt.cards.extend([3, 44])
    with pytest.raises(AssertionError, match=r"names cards \[3, 44\]"):
        audit_events([events[0], leaked])
    shown = table_pb2.TableEvent(seq=3, snapshot=table_pb2.TableView(my_hand=[12]))
    with pytest.raises(AssertionError, match="nobody had opened"):
        audit_events([*events, shown])


@pytest.mark.timeout(120)
async def test_a_seat_gone_past_its_grace_voids_the_private_deal_r10_3(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R10.3: a seat whose key the deal needs never comes; past its grace the deal is void,
    no score, and its record says why (its messages check; no card is opened)."""
    table_id, people = await private_table(
        served.lobby, served.table, 2, quick_rules(1), grace_seconds=1, turn_seconds=0
    )
    ann = people[0]
    task = asyncio.create_task(ann.run())  # bob never opens a stream
    await until(lambda: bool(ann.received))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    # The deal's end, then the match's standing after it (it follows the signed record).
    await until(lambda: 1 in ann.signed and bool(match_updates(ann.received)), 60)
    ann.stop.set()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    ended = [
        public.ended
        for data in ann.received
        if (event := table_pb2.SubscribeEventsResponse.FromString(data).event).HasField("deal")
        and (public := deal_pb2.DealEvent.FromString(event.deal.public_event)).HasField("ended")
    ]
    assert ended[0].outcome == deal_pb2.DEAL_OUTCOME_VOID
    assert ended[0].void_reason.startswith("R10.3: seat 1"), ended[0].void_reason
    record = await served.table.GetDealRecord(
        table_pb2.GetDealRecordRequest(deal_no=1), metadata=ann.metadata
    )
    path = tmp_path / "void.json"
    path.write_bytes(record.record)
    capsys.readouterr()
    assert verifier.main([str(path)]) == 0
    assert "void (R10.3: seat 1" in capsys.readouterr().out
    # The seat is out of the match, the one seat left wins it (R11.1).
    update = match_updates(ann.received)[-1]
    assert update.match_over and list(update.winners) == [ann.seat]
    gone = {score.seat: (score.out, score.gone) for score in update.scores}
    assert gone == {ann.seat: (False, False), 1: (True, True)}


def match_updates(received: list[bytes]) -> list[table_pb2.MatchUpdate]:
    return [
        event.match_update
        for data in received
        if (event := table_pb2.SubscribeEventsResponse.FromString(data).event).HasField(
            "match_update"
        )
    ]


@pytest.mark.timeout(240)
async def test_a_seat_gone_for_good_leaves_the_match_and_the_others_play_on_r10_3(
    served: HostClient,
) -> None:
    """R10.3: past its grace the seat that never came is out of the match; the next deal is
    dealt to the two others (announced without it), played and scored; its standing says
    it left (``gone``), not that it busted."""
    # A grace of 3 s: cleo's runs out in deal 1, and the two others' messages of deal 2, each
    # waited for a grace at most (the turn clock off), come well within it on a busy machine.
    table_id, people = await private_table(
        served.lobby, served.table, 3, quick_rules(2), grace_seconds=3, turn_seconds=0
    )
    ann, bob, cleo = people
    tasks = play_all([ann, bob])  # cleo never opens a stream
    await until(lambda: ann.received and bob.received)
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    await until(lambda: 2 in ann.signed and 2 in bob.signed, 200,
                lambda: f"refusals {[p.refusals for p in people]}")
    await stop_all(people, tasks)
    publics = ann.public_events()
    announced = [p.announced for p in publics if p.HasField("announced")]
    assert [list(a.seats_in_play) for a in announced[:2]] == [[0, 1, 2], [0, 1]]
    ended = [p.ended for p in publics if p.HasField("ended")]
    assert ended[0].void_reason.startswith(f"R10.3: seat {cleo.seat}"), ended[0]
    assert [hand.seat for hand in ended[1].hands] == [0, 1]
    assert not ended[1].void_reason.startswith("R10.3"), ended[1]  # played to its end
    after_first = match_updates(ann.received)[0]
    assert not after_first.match_over
    standing = {score.seat: (score.out, score.gone) for score in after_first.scores}
    assert standing == {0: (False, False), 1: (False, False), 2: (True, True)}


@pytest.mark.timeout(240)
async def test_a_private_stock_is_rebuilt_by_every_seat_and_drawn_from_again_r10_1(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R10.1 at a private table: the discards below the top, encrypted openly, shuffled by
    every seat again; draws from the new stock name round 1's positions; the record's audit
    opens the rebuilt stock and the replay draws from it."""
    table_id, people = await private_table(
        served.lobby, served.table, 2, quick_rules(1, stall_rebuilds=2)
    )
    for p in people:
        p.cheat_after_rebuild = True
    tasks = play_all(people)
    await until(lambda: all(p.received for p in people))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
    )
    await until(lambda: all(1 in p.signed for p in people), 200,
                lambda: f"refusals {[p.refusals for p in people]}")
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    rounds = {
        public.drawn.position.round
        for data in people[0].received
        if (event := table_pb2.SubscribeEventsResponse.FromString(data).event).HasField("deal")
        and (public := deal_pb2.DealEvent.FromString(event.deal.public_event)).HasField("drawn")
    }
    assert rounds == {0, 1}
    record = await served.table.GetDealRecord(
        table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[1].metadata
    )
    assert "1 stock rebuilds" in record_verifies(tmp_path, record.record, "deal.json", capsys)
    assert audit_stream(people[1].received) == 1
    # A card drawn from the rebuilt stock played by the id that stands for its position
    # (a discard's own id), unopened, is refused: nobody has seen that card.
    refused = [r for p in people for r in p.cheat_refusals]
    assert refused and all(
        r.startswith("FAILED_PRECONDITION") and "not opened" in r for r in refused
    ), refused


@pytest.mark.timeout(120)
async def test_the_seat_that_withholds_a_drawn_cards_share_leaves_not_the_drawer_r10_3(
    served: HostClient,
) -> None:
    """A seat answers everything but never sends its share of a card drawn from the stock:
    the drawer cannot read it, its turn clock and grace run out, and the deal is void
    (R10.3). The seat that leaves the match is the one that withheld the share."""
    table_id, people = await private_table(
        served.lobby, served.table, 3, quick_rules(2), turn_seconds=2, grace_seconds=1
    )
    cleo = people[2]
    cleo.share_draws = False
    tasks = await start_playing(served.lobby, table_id, people)
    await until(lambda: 1 in people[0].signed and bool(match_updates(people[0].received)), 90)
    await stop_all(people, tasks)
    publics = people[0].public_events()
    drawers = [p.drawn.seat for p in publics if p.HasField("drawn")]
    assert drawers[-1] != cleo.seat  # the deal stopped at a draw she did not share
    ended = [p.ended for p in publics if p.HasField("ended")]
    assert ended[0].void_reason.startswith(f"R10.3: seat {cleo.seat} "), ended[0]
    standing = {s.seat: s.gone for s in match_updates(people[0].received)[0].scores}
    assert standing == {0: False, 1: False, 2: True}


@pytest.mark.timeout(120)
async def test_a_timed_out_private_turn_is_not_played_by_the_host_and_voids_past_its_grace(
    served: HostClient,
) -> None:
    """The host cannot play a private seat's turn (it cannot read the hand): when the turn
    clock runs out it plays nothing, and past the seat's grace the deal is void (R10.3)."""
    table_id, people = await private_table(
        served.lobby, served.table, 2, quick_rules(1), turn_seconds=2, grace_seconds=1
    )
    ann, bob = people
    bob.play_turns = False  # it answers the protocol but never moves
    tasks = play_all(people)
    await until(lambda: all(p.received for p in people))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    await until(lambda: 1 in ann.signed, 60)
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    events = [table_pb2.SubscribeEventsResponse.FromString(m).event for m in ann.received]
    deal_events = [e for e in events if e.HasField("deal")]
    assert not any(e.deal.by_host for e in deal_events), "the host played a private turn"
    publics = [deal_pb2.DealEvent.FromString(e.deal.public_event) for e in deal_events]
    ended = [p.ended for p in publics if p.HasField("ended")]
    assert ended[0].outcome == deal_pb2.DEAL_OUTCOME_VOID
    assert ended[0].void_reason.startswith(f"R10.3: seat {bob.seat}"), ended[0].void_reason


@pytest.mark.timeout(120)
async def test_a_seat_that_leaves_a_private_deal_voids_it_at_once_r10_3(served: HostClient) -> None:
    table_id, people = await private_table(
        served.lobby, served.table, 2, quick_rules(1), grace_seconds=600, turn_seconds=0
    )
    ann, bob = people
    tasks = play_all(people)
    await until(lambda: all(p.received for p in people))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=ann.metadata
    )
    await until(lambda: ann.started and bob.started, 60)
    await served.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=bob.metadata
    )
    await until(lambda: 1 in ann.signed, 30)  # long before any grace or clock
    for p in people:
        p.stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    ended = [p.ended for p in ann.public_events() if p.HasField("ended")]
    assert ended[0].void_reason.startswith(f"R10.3: seat {bob.seat} is away"), ended[0]


async def test_a_private_table_is_listed_as_such_and_every_seat_signs_with_a_key(
    served: HostClient,
) -> None:
    """CreateTable's private_cards is shown in the lobby; a join names its signing key or
    signs with its player key, and one with neither is refused; a host bot seated there is
    disclosed (the host holds its keys); SendPrivate at an ordinary table is refused."""
    table_id = await served.new_table(seats=3, private_cards=True)
    with pytest.raises(grpc.aio.AioRpcError) as keyless:
        await served.join(table_id, "ann")
    assert keyless.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "signing key" in (keyless.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as weak:
        await served.join(table_id, "ann", private_signing_key=bytes(32))
    assert weak.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    signer = Ed25519Signer()
    ann = await served.join(table_id, "ann", private_signing_key=signer.public_key())
    key = PlayerKey.generate()
    bob = await keyed_join(served, table_id, "bob", key)
    bot = await served.lobby.AddBot(
        lobby_pb2.AddBotRequest(table_id=table_id), metadata=bearer(ann.seat_token)
    )
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    [summary] = [t for t in listed.tables if t.table_id == table_id]
    assert summary.private_cards
    seats = {s.seat: s for s in summary.seats}
    assert seats[ann.seat].private_signing_key == signer.public_key()
    assert seats[bob.seat].private_signing_key == key.public_key
    assert [s.seat for s in summary.seats if s.host_bot] == [bot.seat]
    assert len(seats[bot.seat].private_signing_key) == 32
    ordinary = await served.new_table(seats=2)
    tables = (await served.lobby.ListTables(lobby_pb2.ListTablesRequest())).tables
    assert not next(t for t in tables if t.table_id == ordinary).private_cards
    carl = await served.join(ordinary, "carl")
    with pytest.raises(grpc.aio.AioRpcError) as not_private:
        await served.table.SendPrivate(
            table_pb2.SendPrivateRequest(
                context=table_pb2.MoveContext(request_id="x"), envelope=b"S40P"
            ),
            metadata=bearer(carl.seat_token),
        )
    assert not_private.value.code() == grpc.StatusCode.FAILED_PRECONDITION



@pytest.mark.timeout(240)
async def test_a_relayed_shuffle_whose_deck_is_not_its_proofs_voids_the_deal_naming_it_r10_3(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first shuffler of deal 1 sends its shuffle with two cards swapped after its proof.
    The host relays it (a shuffle's proof is checked after its relay, off the deal's path);
    every other seat refuses that deck, naming the shuffler, and goes no further; the host's
    own check finds it false and voids the deal (R10.3): the shuffler leaves the match, the
    two others play deal 2 without it, and both records verify, the void one saying why."""
    table_id, people = await private_table(
        served.lobby, served.table, 3, quick_rules(2), grace_seconds=60, turn_seconds=0
    )
    for p in people:
        p.tamper = True  # only deal 1's first shuffler gets to use it
    tasks = await start_playing(served.lobby, table_id, people)
    await until(lambda: any(1 in p.signed for p in people), 60)
    cheat = next(p for p in people if not p.tamper)
    honest = [p for p in people if p is not cheat]
    await until(lambda: all(2 in p.signed for p in honest), 180,
                lambda: f"refusals {[p.refusals for p in people]}")
    await stop_all(people, tasks)
    publics = honest[0].public_events()
    ended = [e.ended for e in publics if e.HasField("ended")]
    assert ended[0].outcome == deal_pb2.DEAL_OUTCOME_VOID
    assert ended[0].void_reason.startswith(
        f"R10.3: seat {cheat.seat}'s shuffle proof does not hold"
    ), ended[0].void_reason
    for p in honest:  # each refused the deck itself, naming the same seat
        [fault] = p.faults
        assert fault.culprit == f"seat {cheat.seat}", fault
        assert "shuffle proof does not hold" in fault.detail, fault
    announced = [e.announced for e in publics if e.HasField("announced")]
    assert list(announced[1].seats_in_play) == sorted(p.seat for p in honest)
    standing = {s.seat: s.gone for s in match_updates(honest[0].received)[0].scores}
    assert standing == {p.seat: p is cheat for p in people}
    void = await served.table.GetDealRecord(
        table_pb2.GetDealRecordRequest(deal_no=1), metadata=honest[0].metadata
    )
    path = tmp_path / "void.json"
    path.write_bytes(void.record)
    capsys.readouterr()
    assert verifier.main([str(path)]) == 0
    assert "the audit finds that shuffle false too" in capsys.readouterr().out
    played = await served.table.GetDealRecord(
        table_pb2.GetDealRecordRequest(deal_no=2), metadata=honest[0].metadata
    )
    record_verifies(tmp_path, played.record, "deal2.json", capsys)


@pytest.mark.timeout(240)
async def test_a_false_shuffle_relayed_before_a_restart_is_checked_after_it_r10_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The host stops after it relayed a false shuffle and before its check came back (its
    worker process frozen, then killed): started again on its journal, it checks every
    shuffle of the deal in play again, on a thread as its worker is gone, and voids the deal
    naming the shuffler (R10.3); the seat left wins the match."""
    folder = tmp_path / "host"
    first = await start_host(folder)
    table_id, people = await private_table(
        first.lobby, first.table, 2, quick_rules(1), grace_seconds=600, turn_seconds=0
    )
    frozen = shuffle_checks.worker_pids()
    assert frozen, "a private table's start makes the worker"
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        for p in people:
            p.tamper = True
        tasks = await start_playing(first.lobby, table_id, people)

        def relayed(p: Participant) -> bool:
            return any(Envelope.parse(m).kind == Kind.SHUFFLE for m in p.acked)

        await until(lambda: any(relayed(p) for p in people), 60)
        await stop_all(people, tasks)
        await first.channel.close()
        await first.host.stop(grace=0)
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGKILL)
    cheat = next(p for p in people if relayed(p))
    assert not any(e.HasField("ended") for p in people for e in p.public_events())
    second = await start_host(folder)
    try:
        for p in people:
            p.table = second.table

        async def record() -> bytes | None:
            try:
                found = await second.table.GetDealRecord(
                    table_pb2.GetDealRecordRequest(deal_no=1), metadata=people[0].metadata
                )
            except grpc.aio.AioRpcError:
                return None  # not over yet
            return bytes(found.record)

        for _ in range(300):
            if (void := await record()) is not None:
                break
            await asyncio.sleep(0.1)
        assert void is not None, "the restarted host never checked the shuffle it relayed"
        events = [parse_deal_event(e) for e in DealRecord.from_json(void).events]
        [end] = [e.ended for e in events if e.HasField("ended")]
        assert end.void_reason.startswith(
            f"R10.3: seat {cheat.seat}'s shuffle proof does not hold"
        ), end.void_reason
        path = tmp_path / "void.json"
        path.write_bytes(void)
        capsys.readouterr()
        assert verifier.main([str(path)]) == 0
        assert "the audit finds that shuffle false too" in capsys.readouterr().out
    finally:
        await second.channel.close()
        await second.host.stop(grace=0)


async def test_a_seats_message_on_a_setup_never_announced_is_refused_naming_the_seat(
    served: HostClient,
) -> None:
    """Seat 1 signs its KEY on another setup of the deal (another dealer) than the host
    announced. The host knows what it announced and took those bytes from the seat itself,
    so it refuses them naming the seat, not itself, and relays nothing; seats reading a
    relayed message on another setup can only have had it from a host that should have
    refused it, and name the host (docs/PRIVATE_TABLES.md "Whom the checker names")."""
    table_id, people = await private_table(served.lobby, served.table, 2, quick_rules(1))
    await served.lobby.StartMatch(
        lobby_pb2.StartMatchRequest(table_id=table_id), metadata=people[0].metadata
    )
    liar = people[1]

    async def announced() -> deal_pb2.DealEvent | None:
        view = (await liar.view()).view
        return deal_pb2.DealEvent.FromString(view.deal_events[0]) if view.deal_events else None

    event = None
    async with asyncio.timeout(30):
        while event is None:
            event = await announced()
            await asyncio.sleep(0.05)
    setup, keys = setup_of(table_id, event)
    other = next(s for s in setup.seats if s != setup.dealer)
    forged = PrivateSeat(replace(setup, dealer=other), liar.seat, liar.signer, keys)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await served.table.SendPrivate(
            table_pb2.SendPrivateRequest(envelope=forged.key_message()), metadata=liar.metadata
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    why = refused.value.details() or ""
    assert why.startswith(f"seat {liar.seat}"), why
    assert "host" not in why.split(":")[0], why
    task = served.host.registry.tables[table_id]
    current = task.table.state.current
    assert current is not None and current.private is not None
    assert current.private.transcript == []  # nothing taken, nothing relayed
