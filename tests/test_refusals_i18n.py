"""Refusals in the player's language: the catalogues, the host's LocalizedMessage, the screen."""

from __future__ import annotations

import io
from pathlib import Path

import grpc
import pytest
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from conftest import HostClient, bearer
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from test_client_model import started_model
from test_client_screen import screen_text
from test_host_bad_input import context, deal_two_seats, view

from scala40_net import melds, refusals
from scala40_net.errors import RuleViolation, refuse
from scala40_net.pb import cards_pb2, deal_pb2, table_pb2
from scala40_net.scenario import CardPool
from scala40_net.seat.refusal import refusal_from_error

LOCALE = Path(refusals.__file__).parent / "locale"
PO = LOCALE / "it" / "LC_MESSAGES" / "scala40.po"
MO = PO.with_suffix(".mo")
ROOT = Path(refusals.__file__).parent.parent
# Where refuse() and N_() templates are (as make messages lists them).
SOURCES = (
    "scala40_net/deal.py",
    "scala40_net/melds.py",
    "scala40_net/refusals.py",
    "host/edge/refusal_words.py",
)


def templates_in_code() -> set[str]:
    found: set[str] = set()
    for name in SOURCES:
        path = ROOT / name
        for _, message, _, _ in extract_from_file(
            "python", str(path), keywords={"refuse": (3,), "N_": None}
        ):
            found.add(message if isinstance(message, str) else message[0])
    return found


def test_every_refusal_template_in_the_code_has_an_italian_translation() -> None:
    with PO.open("rb") as f:
        catalog = read_po(f)
    translated = {m.id: m.string for m in catalog if m.id}
    missing = templates_in_code() - {k for k, v in translated.items() if v}
    assert not missing, f"run make messages and translate: {sorted(missing)}"


def test_the_compiled_catalogue_is_the_po_file_compiled() -> None:
    with PO.open("rb") as f:
        catalog = read_po(f)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    assert MO.read_bytes() == compiled.getvalue(), "the .mo is stale: run make messages"


def test_each_translation_takes_the_same_fields_as_its_template() -> None:
    import string

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    with PO.open("rb") as f:
        for message in read_po(f):
            if message.id:
                assert fields(message.id) == fields(message.string), message.id


def test_a_short_meld_is_refused_in_italian_with_the_cards_as_the_screen_shows_them() -> None:
    pool = CardPool()
    with pytest.raises(RuleViolation) as caught:
        melds.make_meld(pool.cards("AH AC"))
    violation = caught.value
    assert str(violation) == "R4.2: a meld has at least 3 cards, AH AC has 2"  # as before
    assert violation.code == "MELD_TOO_SHORT"
    assert refusals.localized(violation, "it") == (
        "R4.2: un gioco ha almeno 3 carte, A♥ A♣ ne ha 2"
    )
    assert refusals.localized(violation.at_operation(2), "en") == (
        "R4.2: operation 2: a meld has at least 3 cards, A♥ A♣ has 2"
    )
    short = refuse(
        "R5.1", "OPENING_SHORT", "opening melds total {total} points, {needed} needed",
        total=30, needed=40,
    )  # fmt: skip
    assert refusals.localized(short, "it") == "R5.1: l'apertura vale 30 punti, ne servono 40"


def test_the_accept_language_picks_a_catalogue() -> None:
    assert refusals.language("it-IT,it;q=0.9") == "it"
    assert refusals.language("de-DE, en;q=0.5") == "en"
    assert refusals.language("") == "en"


async def test_the_host_adds_a_localized_message_in_the_callers_language(
    served: HostClient,
) -> None:
    dealt = await deal_two_seats(served)
    token = dealt.tokens[dealt.mover]
    seq = (await view(served, token)).seq
    draw = table_pb2.DrawRequest(context=context(seq, "d"), source=deal_pb2.DRAW_SOURCE_STOCK)
    drawn = await served.table.Draw(draw, metadata=bearer(token))
    hand = list((await view(served, token)).view.my_hand)
    two = cards_pb2.Operation(new_meld=cards_pb2.NewMeld(cards=hand[:2]))
    play = table_pb2.PlayRequest(context=context(drawn.seq), operations=[two], discard=hand[2])
    for lang, words in (("it-IT,it;q=0.9", "un gioco ha almeno 3 carte"),
                        ("en", "a meld has at least 3 cards")):  # fmt: skip
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await served.table.Play(play, metadata=(*bearer(token), ("accept-language", lang)))
        status = rpc_status.from_call(caught.value)  # type: ignore[arg-type]
        assert status is not None
        said = [d for d in status.details if d.Is(error_details_pb2.LocalizedMessage.DESCRIPTOR)]
        message = error_details_pb2.LocalizedMessage()
        said[0].Unpack(message)
        assert message.locale == lang[:2]
        # R4.2 when the two cards are of one rank (a group), R4.1 otherwise.
        assert message.message[:6] in ("R4.1: ", "R4.2: ") and words in message.message
        assert any(symbol in message.message for symbol in "♥♦♣♠") or "JK" in message.message
        refusal = refusal_from_error(caught.value)
        assert refusal.message == message.message  # what the client shows
        info = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
        error = error_details_pb2.ErrorInfo()
        info[0].Unpack(error)
        assert error.metadata["reason_code"] == "MELD_TOO_SHORT"
        assert error.metadata["param_n"] == "2"
        assert error.metadata["sentence"].startswith("operation 1: a meld has at least 3 cards")


def test_the_italian_screen_says_a_local_refusal_in_italian() -> None:
    # Defect: "Rifiutata — R4.1: a meld has at least 3 cards, AH AC has 2".
    lines = screen_text(started_model(), [24, 80], keys="cala AP 2Q\r", lang="it")
    text = " ".join(" ".join(line.split()) for line in lines)
    assert "Rifiutata — R4.1: un gioco ha almeno 3 carte, A♠ 2♦ ne ha 2" in text


async def test_the_hosts_own_refusals_are_said_in_the_callers_language_too(
    served: HostClient,
) -> None:
    dealt = await deal_two_seats(served)
    other = dealt.tokens[dealt.other]
    seq = (await view(served, other)).seq
    draw = table_pb2.DrawRequest(context=context(seq), source=deal_pb2.DRAW_SOURCE_STOCK)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await served.table.Draw(draw, metadata=(*bearer(other), ("accept-language", "it")))
    refusal = refusal_from_error(caught.value)
    assert refusal.reason == "NOT_YOUR_TURN"
    assert refusal.message == "R3: non è il tuo turno"


CLIENT_PO = ROOT / "client" / "locale" / "it" / "LC_MESSAGES" / "scala40_client.po"


@pytest.mark.parametrize("po", [PO, CLIENT_PO], ids=["refusals", "client"])
def test_the_italian_words_for_melds_are_the_glossarys(po: Path) -> None:
    # RULES.md's glossary (and 000_…): a meld is a *gioco*, a group a *combinazione*, a run a
    # *scala*; one word for each, on every screen and in every refusal.
    with po.open("rb") as handle:
        catalogue = read_po(handle)
    for message in catalogue:
        if not message.id or not message.string:
            continue
        english = message.id if isinstance(message.id, str) else message.id[0]
        italian = message.string if isinstance(message.string, str) else message.string[0]
        words = english.lower()
        if "meld" in words and "group" not in words:
            assert "combinazion" not in italian, english
        if "group" in words:
            assert "combinazion" in italian and "tris o poker" not in italian, english
        if "sequence" in words:
            assert "sequenz" not in italian, english
