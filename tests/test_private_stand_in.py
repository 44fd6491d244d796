"""A private seat handed by its own player, with its keys, to a host bot (HandToStandIn).

Three ``scala40-bot`` seats play a private deal over a real host; one hands its seat over in
the middle of the deal. The host checks the keys (a wrong one changes nothing), the seat is
then the host's bot's (said to everyone: host_bot, AWAY_REASON_STAND_IN), its own token may
no longer move or sign, and the deal goes on to its end instead of being void (R10.3), its
record audited; a host killed after a hand-over takes the stand-in up again from the keys
it kept, and without them the deal is void. docs/PRIVATE_TABLES.md "The stand-in".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
import pytest
from conftest import HostClient, until
from hostproc import HostProcess, free_port
from private_participant import Participant, start_playing, stop_all
from test_host_private import record_verifies, restarted
from test_private_host_bot import table_with_bots
from test_private_netbot import bots_at_a_private_table, deal_event, stuck

from host.journal.sqlite import TABLES_FOLDER
from scala40_net.fairdeal.record import DealRecord, parse_deal_event
from scala40_net.pb import deal_pb2, lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc
from scala40_net.private.group import scalar_bytes
from scala40_net.private.messages import Ed25519Signer
from scala40_net.seat.netbot import NetworkSeat
from scala40_net.seat.refusal import refusal_from_error


async def seat_info(served: HostClient, table_id: str, seat: int) -> lobby_pb2.SeatInfo:
    listed = await served.lobby.ListTables(lobby_pb2.ListTablesRequest())
    summary = next(t for t in listed.tables if t.table_id == table_id)
    return next(s for s in summary.seats if s.seat == seat)


async def refused(call: Awaitable[object]) -> tuple[grpc.StatusCode, str]:
    """The code and reason of a call that must be refused."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error.code(), refusal_from_error(error).reason
    raise AssertionError("the call was taken")


def ended(bot: NetworkSeat, deal_no: int) -> deal_pb2.DealEnded | None:
    for event in bot.log.events if bot.log else []:
        if event.HasField("deal"):
            public = deal_event(event)
            if public.deal_no == deal_no and public.WhichOneof("event") == "ended":
                return public.ended
    return None


@pytest.mark.long(60)
@pytest.mark.timeout(400)
async def test_a_seat_handed_with_its_keys_to_a_stand_in_plays_the_deal_on(
    served: HostClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id, bots, signed = await bots_at_a_private_table(served, tmp_path, 3, 2)
    stopping = asyncio.Event()
    tasks = {b.seat: asyncio.create_task(b.play_to_end(stopping)) for b in bots}
    leaver = bots[1]
    try:
        await served.lobby.StartMatch(
            lobby_pb2.StartMatchRequest(table_id=table_id), metadata=bots[0].metadata
        )
        # In the middle of the first deal: its cards dealt and a few turns played.
        await until(
            lambda: (
                leaver.log is not None
                and sum(
                    1
                    for e in leaver.log.events
                    if e.HasField("deal") and deal_event(e).WhichOneof("event") == "played"
                )
                >= 3
            ),
            120,
            lambda: stuck(bots),
        )
        tasks.pop(leaver.seat).cancel()
        await asyncio.sleep(0.2)
        deals = leaver.private
        assert deals is not None and deals.current is not None and deals.deal_no is not None
        deal_no = deals.deal_no
        real_key = deals.current.private.secret
        assert isinstance(deals.signer, Ed25519Signer)
        signing_key = deals.signer.private_bytes()

        # Keys that are not the seat's change nothing.
        wrong = [
            table_pb2.HandToStandInRequest(
                signing_key=Ed25519Signer().private_bytes(),
                deal_no=deal_no,
                deal_key=scalar_bytes(real_key),
            ),
            table_pb2.HandToStandInRequest(
                signing_key=signing_key, deal_no=deal_no, deal_key=scalar_bytes(real_key + 1)
            ),
            table_pb2.HandToStandInRequest(signing_key=signing_key, deal_no=deal_no),
            table_pb2.HandToStandInRequest(signing_key=b"short", deal_no=deal_no),
        ]
        for request in wrong:
            code, reason = await refused(
                served.table.HandToStandIn(request, metadata=leaver.metadata)
            )
            assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "KEY_MISMATCH")
        code, reason = await refused(
            served.table.HandToStandIn(
                table_pb2.HandToStandInRequest(
                    signing_key=signing_key, deal_no=deal_no + 1, deal_key=scalar_bytes(real_key)
                ),
                metadata=leaver.metadata,
            )
        )
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "WRONG_DEAL")
        # Keys the host cannot write to its disk (its folder for them is a file): refused,
        # nothing kept, the seat still its player's.
        bots_folder = tmp_path / "host" / TABLES_FOLDER / f"{table_id}.bots"
        bots_folder.write_bytes(b"in the way")
        code, reason = await refused(
            served.table.HandToStandIn(
                table_pb2.HandToStandInRequest(
                    signing_key=signing_key, deal_no=deal_no, deal_key=scalar_bytes(real_key)
                ),
                metadata=leaver.metadata,
            )
        )
        assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "KEYS_NOT_KEPT")
        bots_folder.unlink()
        info = await seat_info(served, table_id, leaver.seat)
        assert not info.away and not info.host_bot

        # The seat's own call, as the screen makes it: taken, and said to everyone.
        await deals.hand_over(leaver.table.hand_to_stand_in)
        assert deals.handed and deals.current is None
        info = await seat_info(served, table_id, leaver.seat)
        assert info.away == lobby_pb2.AWAY_REASON_STAND_IN and info.host_bot
        # Handed again with the same key: answered as the first time.
        await served.table.HandToStandIn(
            table_pb2.HandToStandInRequest(signing_key=signing_key), metadata=leaver.metadata
        )
        # The player's token reads on, but no longer moves or signs for the seat.
        code, reason = await refused(
            served.table.Draw(
                table_pb2.DrawRequest(
                    context=table_pb2.MoveContext(request_id="after the hand-over"),
                    source=deal_pb2.DRAW_SOURCE_STOCK,
                ),
                metadata=leaver.metadata,
            )
        )
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "STAND_IN")
        code, reason = await refused(
            served.table.SendPrivate(
                table_pb2.SendPrivateRequest(envelope=b"anything"), metadata=leaver.metadata
            )
        )
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "STAND_IN")
        await served.table.GetView(table_pb2.GetViewRequest(), metadata=leaver.metadata)

        # The deal goes on with the stand-in to its end, scored, not void (R10.3).
        others = [b for b in bots if b is not leaver]
        await until(
            lambda: all(ended(b, deal_no) is not None for b in others), 300, lambda: stuck(others)
        )
        end = ended(others[0], deal_no)
        # Played to its end on the rules (a stall may void it, R10.2), not void for the seat's
        # absence (R10.3): the stand-in sent what the seat owed, its REVEAL too.
        assert end is not None and not end.void_reason.startswith("R10.3"), end
        await until(lambda: all(signed[b.seat] for b in others), 60)
    finally:
        stopping.set()
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
    record = await others[0].link.deal_record(deal_no)
    print(record_verifies(tmp_path, record, "deal.json", capsys))


async def test_an_ordinary_seat_is_not_handed_over_with_keys(served: HostClient) -> None:
    created = await served.lobby.CreateTable(lobby_pb2.CreateTableRequest(name="ordinary", seats=2))
    joined = await served.lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=created.table_id, player_name="Ada")
    )
    metadata = (("authorization", f"Bearer {joined.seat_token}"),)
    code, reason = await refused(
        served.table.HandToStandIn(
            table_pb2.HandToStandInRequest(signing_key=Ed25519Signer().private_bytes()),
            metadata=metadata,
        )
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_PRIVATE")


def void_reason(seat: Participant, deal_no: int) -> str | None:
    """Why deal ``deal_no`` was void as ``seat``'s stream told it ("" for a scored end)."""
    for public in seat.public_events():
        if public.deal_no == deal_no and public.WhichOneof("event") == "ended":
            return public.ended.void_reason
    return None


async def until_true(check: Callable[[], Awaitable[bool]], seconds: float) -> None:
    """Ask ``check`` every tenth of a second until it says yes, at most ``seconds``."""
    async with asyncio.timeout(seconds):
        while not await check():
            await asyncio.sleep(0.1)


@pytest.mark.long(30)
@pytest.mark.timeout(300)
@pytest.mark.parametrize("keys_lost", [False, True], ids=["keys kept", "keys lost"])
async def test_a_stand_in_goes_on_after_a_host_kill_and_without_its_keys_the_deal_is_void(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], keys_lost: bool
) -> None:
    """The host SIGKILLed after a hand-over starts again and its stand-in takes the deal up
    from the keys it kept, to the deal's end; with those files gone from its data dir, the
    seat is gone as past its grace: the deal is void and the seat leaves the match (R10.3)."""
    host = HostProcess(tmp_path / "host", free_port())
    await host.start()
    try:
        assert host.channel is not None
        lobby = lobby_pb2_grpc.LobbyServiceStub(host.channel)
        table = table_pb2_grpc.TableServiceStub(host.channel)
        table_id, people, _ = await table_with_bots(
            lobby, table, 3, 0, turn_seconds=0, grace_seconds=600
        )
        tasks = await start_playing(lobby, table_id, people)
        await until(lambda: people[0].draws_seen >= 3, 90,
                    lambda: f"refusals {[p.refusals for p in people]}")  # fmt: skip
        leaver = people[1]
        leaver.stop.set()
        tasks[1].cancel()
        await asyncio.gather(tasks[1], return_exceptions=True)
        staying, tasks = [people[0], people[2]], [tasks[0], tasks[2]]
        assert leaver.deal is not None
        await table.HandToStandIn(
            table_pb2.HandToStandInRequest(
                signing_key=leaver.signer.private_bytes(),
                deal_no=leaver.deal_no,
                deal_key=scalar_bytes(leaver.deal.secret),
            ),
            metadata=leaver.metadata,
        )
        folder = host.data_dir / TABLES_FOLDER / f"{table_id}.bots" / str(leaver.seat)
        kept = sorted(p.name for p in folder.iterdir())
        assert kept == [f"{leaver.deal_no}.key", f"{leaver.deal_no}.sent", "signing.key"], kept
        assert all(p.stat().st_mode & 0o077 == 0 for p in folder.iterdir())
        if keys_lost:
            (folder / "signing.key").unlink()
        tasks = await restarted(host, staying, tasks)
        if keys_lost:
            # Taken up from the journal before the seats were back: its end is in the record.
            stub = table_pb2_grpc.TableServiceStub(host.channel)

            async def seat_gone() -> bool:
                view = (await staying[0].view()).view
                return view.seats[leaver.seat].score.gone

            await until_true(seat_gone, 120)
            record = await stub.GetDealRecord(
                table_pb2.GetDealRecordRequest(deal_no=1), metadata=staying[0].metadata
            )
            events = DealRecord.from_json(record.record).events
            end = parse_deal_event(events[-1])
            why = end.ended.void_reason
            assert why.startswith("R10.3") and "stand-in" in why, why
        else:
            await until(lambda: all(1 in p.signed for p in staying), 180,
                        lambda: f"refusals {[p.refusals for p in staying]}")  # fmt: skip
            # Played to its end on the rules (a stall may void it, R10.2), never for the
            # seat's absence (R10.3): the stand-in sent what the seat owed, its REVEAL too.
            why = void_reason(staying[0], 1)
            assert why is not None and not why.startswith("R10.3"), why
            record = await table_pb2_grpc.TableServiceStub(host.channel).GetDealRecord(
                table_pb2.GetDealRecordRequest(deal_no=1), metadata=staying[0].metadata
            )
            record_verifies(tmp_path, record.record, "deal.json", capsys)
        await stop_all(staying, tasks)
    finally:
        await host.stop()
