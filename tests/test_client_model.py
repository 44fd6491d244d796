"""The view model: TableEvents built by hand from the protos in, what the screen shows out."""

from __future__ import annotations

import dataclasses

from client.model import Phase, TableModel
from scala40_net.cards import Face, Suit, face, joker_id, parse_face
from scala40_net.pb import cards_pb2, deal_pb2, lobby_pb2, ruleset_pb2, table_pb2
from scala40_net.wire import face_to_pb

TABLE = "t-1"
NAMES = ("Ada", "Bea", "Cleo", "Dino")
ME = 0


def card(text: str, copy: int = 0) -> int:
    """A card id by its face (copy 0 unless told): ``card("7H")``, ``card("JK")``."""
    f = parse_face(text)
    if f.is_joker:
        return joker_id(copy)
    assert f.suit is not None
    return 54 * copy + 13 * int(f.suit) + f.rank - 1


def cards(text: str) -> list[int]:
    out: list[int] = []
    for word in text.split():
        copy = 0
        while card(word, copy) in out:
            copy += 1
        out.append(card(word, copy))
    return out


def deal_event(
    seq: int, private: deal_pb2.PrivateDealEvent | None = None, deal_no: int = 1, **event: object
) -> table_pb2.TableEvent:
    public = deal_pb2.DealEvent(table_id=TABLE, deal_no=deal_no, **event)  # type: ignore[arg-type]
    envelope = table_pb2.DealEventEnvelope(public_event=public.SerializeToString())
    if private is not None:
        envelope.private_event.CopyFrom(private)
    return table_pb2.TableEvent(seq=seq, deal=envelope)


def private(deal_no: int = 1, **event: object) -> deal_pb2.PrivateDealEvent:
    return deal_pb2.PrivateDealEvent(table_id=TABLE, deal_no=deal_no, **event)  # type: ignore[arg-type]


def waiting_view(
    my_seat: int | None = ME, preset: int = ruleset_pb2.PRESET_UNSPECIFIED, **options: int
) -> table_pb2.TableView:
    """Four seats, no deal yet, on ``preset`` with ``options`` (RulesetOptions fields)."""
    view = table_pb2.TableView()
    if my_seat is not None:
        view.my_seat = my_seat
    view.table.table_id = TABLE
    view.table.name = "Prova"
    view.table.phase = lobby_pb2.TABLE_PHASE_PLAYING
    view.table.preset = preset  # type: ignore[assignment]
    view.table.ruleset.opening_points = 40
    for name, value in options.items():
        setattr(view.table.ruleset, name, value)
    for seat, name in enumerate(NAMES):
        sv = view.seats.add()
        sv.info.seat = seat
        sv.info.taken = True
        sv.info.name = name
        sv.info.bot = seat != ME
        sv.info.connected = True
    return view


HAND = "7H 8H 9H 2D 5D 10D JD 4C 4C AS QS KS JK"


def started_model(
    hand: str = HAND,
    my_seat: int | None = ME,
    preset: int = ruleset_pb2.PRESET_UNSPECIFIED,
    **options: int,
) -> TableModel:
    """A 4-seat table, deal 1 dealt (dealer Dino, cutter Cleo), this seat to draw first."""
    model = TableModel()
    model.apply(table_pb2.TableEvent(seq=1, snapshot=waiting_view(my_seat, preset, **options)))
    for event in deal_start_events(hand, my_seat):
        model.apply(event)
    return model


def deal_start_events(hand: str = HAND, my_seat: int | None = ME) -> list[table_pb2.TableEvent]:
    announced = deal_pb2.DealAnnounced(
        dealer_seat=3,
        cutter_seat=2,
        seats_in_play=[0, 1, 2, 3],
        deck_size=108,
        host_commitment=b"h" * 32,
    )
    commitments = deal_pb2.CommitmentsPublished(host_commitment=b"h" * 32)
    for seat in range(4):
        commitments.commitments.add(seat=seat, commitment=bytes([seat]) * 32)
    reveals = deal_pb2.SeedsRevealed()
    for seat in range(4):
        reveals.reveals.add(seat=seat, seed=bytes([seat + 10]) * 32, cut=40 if seat == 2 else 0)
    dealt = (
        private(hand_dealt=deal_pb2.HandDealt(cards=cards(hand))) if my_seat is not None else None
    )
    return [
        deal_event(2, announced=announced),
        deal_event(3, commitments=commitments),
        deal_event(4, reveals=reveals),
        deal_event(
            5,
            dealt,
            started=deal_pb2.DealStarted(first_discard=card("3C"), stock_count=55, first_seat=0),
        ),
    ]


def add_deal_events(view: table_pb2.TableView, stream: list[table_pb2.TableEvent]) -> None:
    """The deal's events in a snapshot as the host puts them: each private event beside the
    public one it came with."""
    for e in stream:
        if e.deal.HasField("private_event"):
            view.my_private_events.append(e.deal.private_event)
            view.my_private_with_event.append(len(view.deal_events))
        view.deal_events.append(e.deal.public_event)


def with_view(model: TableModel, **changes: object) -> TableModel:
    """``model`` with its deal's view changed as told: a position the screen is shown in."""
    assert model.deal is not None
    model.deal = dataclasses.replace(model.deal, **changes)  # type: ignore[arg-type]
    return model


def played(
    seat: int, *ops: cards_pb2.Operation, discard: str | None = None, **flags: object
) -> deal_pb2.Played:
    message = deal_pb2.Played(seat=seat, operations=list(ops), **flags)  # type: ignore[arg-type]
    if discard is not None:
        message.discard = card(discard)
    return message


def new_meld(ids: list[int], joker_as: str | None = None) -> cards_pb2.Operation:
    meld = cards_pb2.NewMeld(cards=ids)
    if joker_as is not None:
        meld.joker_as.CopyFrom(face_to_pb(parse_face(joker_as)))
    return cards_pb2.Operation(new_meld=meld)


def attach(meld_id: int, ids: list[int]) -> cards_pb2.Operation:
    return cards_pb2.Operation(attach=cards_pb2.Attach(meld_id=meld_id, cards=ids))


def swap(meld_id: int, card_id: int) -> cards_pb2.Operation:
    return cards_pb2.Operation(swap_joker=cards_pb2.SwapJoker(meld_id=meld_id, card=card_id))


# --- tests -------------------------------------------------------------------------------


def test_the_deal_gives_this_seat_13_cards_and_the_first_discard() -> None:
    model = started_model()
    assert sorted(model.hand) == sorted(cards(HAND))
    assert model.discard_top == card("3C")
    assert model.stock_count == 55
    assert model.turn == ME and model.my_turn
    assert model.phase is Phase.DRAW
    assert model.dealer == 3
    assert all(model.hand_count(s) == 13 for s in range(4))


def test_the_fair_deal_exchange_is_followed() -> None:
    model = started_model()
    fd = model.fair_deal
    assert fd is not None
    assert fd.cutter == 2 and fd.dealer == 3
    assert set(fd.commitments) == {0, 1, 2, 3}
    assert fd.reveals[2][1] == 40
    assert len(fd.event_bytes) == 4  # the exact bytes, kept for the hash chain
    assert deal_pb2.DealEvent.FromString(fd.event_bytes[0]).WhichOneof("event") == "announced"


def test_drawing_from_the_stock_adds_the_private_card_to_my_hand() -> None:
    model = started_model()
    drawn = private(stock_card_drawn=deal_pb2.StockCardDrawn(card=card("6H")))
    model.apply(
        deal_event(6, drawn, drawn=deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_STOCK))
    )
    assert card("6H") in model.hand and len(model.hand) == 14
    assert model.stock_count == 54
    assert model.phase is Phase.PLAY
    assert model.last_drawn == card("6H")


def test_an_opponent_taking_the_discard_empties_the_pile_for_everyone() -> None:
    model = started_model()
    model.apply(deal_event(6, played=played(0, discard="KS")))
    assert model.turn == 1 and model.discard_top == card("KS")
    model.apply(
        deal_event(
            7,
            drawn=deal_pb2.CardDrawn(seat=1, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("KS")),
        )
    )
    assert model.discard_top == card("3C")
    assert model.hand_count(1) == 14
    assert card("KS") not in model.hand


def test_a_play_lays_melds_with_the_joker_shown_as_its_card_and_passes_the_turn() -> None:
    model = started_model()
    drawn = private(stock_card_drawn=deal_pb2.StockCardDrawn(card=card("6H")))
    model.apply(
        deal_event(6, drawn, drawn=deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_STOCK))
    )
    play = played(
        0,
        new_meld(cards("6H 7H 8H 9H")),
        new_meld([card("QS"), card("KS"), card("JK")], joker_as="AS"),
        discard="2D",
        opened=True,
        new_meld_ids=[1, 2],
    )
    model.apply(deal_event(7, played=play))
    assert [m.meld_id for m in model.sorted_melds()] == [1, 2]
    second = model.melds[2]
    assert second.joker_as == Face(1, Suit.SPADES)
    assert second.points == 31
    assert model.has_opened(0)
    assert model.hand_count(0) == 13 + 1 - 7 - 1
    assert model.turn == 1 and model.phase is Phase.DRAW
    assert model.discard_top == card("2D")
    assert any(e.key == "log_opened" for e in model.log)


def test_an_attached_card_takes_its_place_in_the_sequence() -> None:
    model = started_model()
    model.apply(
        deal_event(6, played=played(0, new_meld(cards("7H 8H 9H")), discard="KS", new_meld_ids=[1]))
    )
    model.apply(
        deal_event(7, played=played(1, attach(1, [card("10H", 1), card("6H", 1)]), discard="5C"))
    )
    meld = model.melds[1]
    assert [str(face(c)) for c in meld.cards] == ["6H", "7H", "8H", "9H", "10H"]
    assert model.hand_count(1) == 13 - 2 - 1


def test_swapping_the_joker_gives_it_to_my_hand() -> None:
    model = started_model(hand="8H 9H JK 7H 7H 2D 5D 10D JD 4C 4C AS QS")
    jk, seven = card("JK", 1), card("7H", 1)
    model.apply(
        deal_event(
            6,
            played=played(
                1,
                new_meld([jk, card("8H", 1), card("9H", 1)], "7H"),
                discard="5C",
                new_meld_ids=[1],
            ),
        )
    )
    assert model.melds[1].joker_as == Face(7, Suit.HEARTS)
    model.apply(
        deal_event(
            7,
            played=played(
                0,
                swap(1, seven),
                new_meld([card("7H"), card("8H"), card("9H"), jk], "10H"),
                discard="2D",
                new_meld_ids=[2],
            ),
        )
    )
    assert model.melds[1].joker_as is None
    assert seven in model.melds[1].cards
    assert jk in model.melds[2].cards and jk not in model.hand


def test_the_end_of_a_deal_shows_every_hand_and_scores() -> None:
    model = started_model()
    ended = deal_pb2.DealEnded(outcome=deal_pb2.DEAL_OUTCOME_WENT_OUT, closer_seat=1)
    ended.hands.add(seat=0, cards=cards("AS KS"), opened=True, penalty=21)
    ended.hands.add(seat=1, cards=[], opened=True, penalty=0)
    model.apply(deal_event(6, ended=ended))
    assert model.phase is Phase.DEAL_OVER
    assert model.result is not None and model.result.closer == 1
    assert model.fair_deal is not None and model.fair_deal.ended
    update = table_pb2.MatchUpdate()
    update.scores.add(seat=0, total=21)
    update.scores.add(seat=1, total=0)
    model.apply(table_pb2.TableEvent(seq=7, match_update=update))
    assert model.seat(0).total == 21
    model.apply(deal_event(8, host_seed_revealed=deal_pb2.HostSeedRevealed(host_seed=b"s" * 32)))
    assert model.deals[1].host_seed == b"s" * 32
    model.apply(
        table_pb2.TableEvent(seq=9, deal_signed=table_pb2.DealSigned(deal_no=1, signature=b"x"))
    )
    assert model.deals[1].signed


def test_an_event_seen_twice_is_applied_once() -> None:
    model = started_model()
    again = deal_start_events()[-1]
    assert not model.apply(again)
    assert len(model.hand) == 13


def test_a_snapshot_mid_deal_rebuilds_the_exchange_and_the_discard_pile() -> None:
    events = deal_start_events()
    view = waiting_view()
    add_deal_events(view, events)
    later = deal_pb2.DealEvent(table_id=TABLE, deal_no=1, played=played(0, discard="KS"))
    view.deal_events.append(later.SerializeToString())
    view.my_hand.extend(cards("7H 8H 9H 2D 5D 10D JD 4C 4C AS QS JK"))
    view.discard_top = card("KS")
    view.discard_count = 2
    view.stock_count = 54
    view.deal_no = 1
    view.dealer_seat = 3
    view.turn_seat = 1
    view.phase = table_pb2.TURN_PHASE_DRAW
    model = TableModel()
    model.apply(table_pb2.TableEvent(seq=40, snapshot=view))
    assert model.last_seq == 40
    assert model.discard_pile == [card("3C"), card("KS")]
    assert model.fair_deal is not None and set(model.fair_deal.commitments) == {0, 1, 2, 3}
    assert model.turn == 1 and model.phase is Phase.DRAW
    assert len(model.hand) == 12
    assert model.turns_played == {0: 1, 1: 0, 2: 0, 3: 0}


def test_seats_chat_and_the_match_are_logged() -> None:
    model = started_model()
    info = lobby_pb2.SeatInfo(seat=1, taken=True, name="Bea", connected=False)
    model.apply(table_pb2.TableEvent(seq=6, seat_changed=info))
    model.apply(
        table_pb2.TableEvent(seq=7, chat=table_pb2.ChatMessage(seat=1, name="Bea", text="ciao"))
    )
    keys = [e.key for e in model.log]
    assert "log_seat_disconnected" in keys and "log_chat" in keys
    assert model.chat[-1].text == "ciao"
    update = table_pb2.MatchUpdate(match_over=True, winners=[1])
    update.scores.add(seat=0, total=120, out=True)
    model.apply(table_pb2.TableEvent(seq=8, match_update=update))
    assert model.match_over and model.phase is Phase.MATCH_OVER
    assert "log_busted" in [e.key for e in model.log]


def test_a_spectator_has_no_hand() -> None:
    model = started_model(my_seat=None)
    assert model.is_spectator and model.hand == []
    assert not model.my_turn


def test_a_rejoin_snapshot_logs_the_deal_so_far_and_a_later_one_does_not_repeat_it() -> None:
    view = waiting_view()
    for e in deal_start_events():
        view.deal_events.append(e.deal.public_event)
    later = deal_pb2.DealEvent(table_id=TABLE, deal_no=1, played=played(0, discard="KS"))
    view.deal_events.append(later.SerializeToString())
    view.deal_no, view.dealer_seat, view.turn_seat = 1, 3, 1
    view.phase = table_pb2.TURN_PHASE_DRAW
    model = TableModel()
    model.apply(table_pb2.TableEvent(seq=40, snapshot=view))
    keys = [entry.key for entry in model.log]
    assert "log_deal_started" in keys and keys.count("log_discard") == 1
    model.apply(table_pb2.TableEvent(seq=41, snapshot=view))  # after a gap in the stream
    assert [entry.key for entry in model.log].count("log_discard") == 1


def test_the_model_remembers_who_took_which_card_from_the_pile() -> None:
    model = started_model()
    take = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("3C"))
    model.apply(deal_event(6, drawn=take))
    assert model.pile_takes == [(0, card("3C"))]


def test_r3_2_a_snapshot_after_putting_the_discard_back_still_says_draw_from_the_stock() -> None:
    # The view has no field for it: the deal's events since the last play say it.
    view = waiting_view()
    take = deal_pb2.CardDrawn(seat=0, source=deal_pb2.DRAW_SOURCE_DISCARD, card=card("3C"))
    back = deal_pb2.DiscardReturned(seat=0, card=card("3C"))
    stream = [*deal_start_events(), deal_event(6, drawn=take), deal_event(7, discard_returned=back)]
    add_deal_events(view, stream)
    for sv in view.seats:
        sv.in_deal, sv.hand_count = True, 13
    view.my_hand.extend(cards(HAND))
    view.discard_pile.append(card("3C"))
    view.discard_top, view.discard_count, view.stock_count = card("3C"), 1, 55
    view.deal_no, view.dealer_seat, view.turn_seat = 1, 3, 0
    view.phase = table_pb2.TURN_PHASE_DRAW
    model = TableModel()
    model.apply(table_pb2.TableEvent(seq=7, snapshot=view))
    assert model.deal is not None and model.deal.discard_barred and model.discard_barred
    followed = started_model()
    for e in stream[-2:]:
        followed.apply(e)
    assert followed.deal == model.deal  # the same view, from the stream or from the host
