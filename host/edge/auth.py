"""Seat and spectator tokens, and the one server interceptor that checks them.

A token is a random secret the lobby hands out; the host keeps only its
SHA-256, so a copy of the data folder does not hand out seats. The
interceptor reads ``authorization: Bearer <token>``, finds whose it is, and
makes that principal visible to the handler through ``current_principal``.
It also turns every ``Refusal`` a handler raises into a rich gRPC status, so
no handler aborts by hand.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import inspect
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from host.edge.errors import Refusal, malformed, not_found, permission_denied, unauthenticated
from host.edge.limits import Limits, address_of

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Principal:
    """Who is calling: a seat of a table, or a spectator of it (``seat`` None)."""

    table_id: str
    seat: int | None

    @property
    def is_spectator(self) -> bool:
        return self.seat is None


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


# scrypt for table passwords: salted, and slow on purpose (about 30 ms here), so a copy of
# the journal does not give them away to a quick guess. Tokens are random: SHA-256 suffices.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


def password_hash(password: str) -> str:
    """``scrypt$<salt hex>$<hash hex>``: what the journal keeps of a table's password."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, **_SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str) -> bool:
    """Whether ``password`` is the table's, in constant time; a journal from before scrypt
    kept a bare SHA-256 (hex), which is still read."""
    given = password.encode("utf-8")
    kind, _, rest = stored.partition("$")
    if kind != "scrypt":
        return secrets.compare_digest(hashlib.sha256(given).hexdigest(), stored)
    salt_hex, _, digest_hex = rest.partition("$")
    try:
        salt, digest = bytes.fromhex(salt_hex), bytes.fromhex(digest_hex)
    except ValueError:
        return False
    found = hashlib.scrypt(given, salt=salt, **_SCRYPT)
    return secrets.compare_digest(found, digest)


class TokenBook:
    """Token digests -> principals; the journal keeps the same pairs for restarts.

    The tokens of a table the host no longer runs (archived, or removed after idling) are
    remembered as gone, so their holders hear the table is not here rather than that their
    token is a guess; the most recent ``GONE_KEPT`` are kept.
    """

    GONE_KEPT = 100_000

    def __init__(self) -> None:
        self._by_digest: dict[bytes, Principal] = {}
        self._gone: dict[bytes, str] = {}  # digest -> the table it was for, oldest first

    def add(self, digest: bytes, principal: Principal) -> None:
        self._by_digest[digest] = principal

    def remove_seat(self, table_id: str, seat: int) -> None:
        stale = [d for d, p in self._by_digest.items() if p == Principal(table_id, seat)]
        for d in stale:
            del self._by_digest[d]

    def remove_table(self, table_id: str) -> None:
        """Every token of a table the host no longer runs (archived or removed)."""
        stale = [d for d, p in self._by_digest.items() if p.table_id == table_id]
        for d in stale:
            del self._by_digest[d]
            self.add_gone(d, table_id)

    def add_gone(self, digest: bytes, table_id: str) -> None:
        """A token of a table no longer run here (read back from the archive at a start)."""
        self._gone[digest] = table_id
        while len(self._gone) > self.GONE_KEPT:
            del self._gone[next(iter(self._gone))]

    def find(self, token: str) -> Principal | None:
        return self._by_digest.get(token_digest(token))

    def gone(self, token: str) -> str | None:
        """The table a token was for, when that table is no longer run here."""
        return self._gone.get(token_digest(token))


class Access(Enum):
    """What a method asks of its caller."""

    ANYONE = "anyone"
    SEAT = "seat"
    SEAT_OR_SPECTATOR = "seat or spectator"


_current: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "principal", default=None
)


def current_principal() -> Principal:
    """The caller of the running handler; only for methods whose access is not ANYONE."""
    principal = _current.get()
    if principal is None:
        raise RuntimeError("current_principal() in a handler that needs no token")
    return principal


def metadata_value(metadata: Any, key: str) -> str | None:
    """The first value of ``key`` in a call's metadata, as text."""
    for name, value in metadata or ():
        if name == key:
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def bearer_token(metadata: tuple[tuple[str, str | bytes], ...] | None) -> str | None:
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return ""
    return None


@dataclass(frozen=True)
class Malformed:
    """A request whose bytes are not its message: answered INVALID_ARGUMENT, never decoded."""

    error: str


def _safe(deserialize: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """The method's deserializer, giving ``Malformed`` instead of raising (gRPC would answer
    UNKNOWN and log a traceback per request: a stranger could fill the disk with them)."""
    if deserialize is None:
        return None

    def decode(data: bytes) -> Any:
        try:
            return deserialize(data)
        except DecodeError as error:
            return Malformed(str(error) or "not a valid message")

    return decode


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Checks each call's limits and the bearer token its method needs, refuses undecodable
    requests, and turns refusals into rich statuses.

    The token of a streamed call is checked once, when it opens. Each later request of it is
    counted against the address's limit here, but for the methods in ``counts_itself`` (the
    seat's stream): their handler counts each one, and answers one refused on the stream
    instead of ending it.
    """

    def __init__(
        self,
        tokens: TokenBook,
        access: dict[str, Access],
        limits: Limits,
        counts_itself: frozenset[str] = frozenset(),
    ) -> None:
        self._tokens = tokens
        self._access = access
        self._limits = limits
        self._counts_itself = counts_itself
        self._wrapped: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}

    def _authenticate(self, method: str, metadata: Any, peer: str) -> Principal | None:
        """The caller's principal, or None for a method that needs none.

        A valid token is served even while its address is locked out for guessing: the
        lockout stops the guesses, not the players who share the address. A token of a
        table no longer here is NOT_FOUND, and no guess.
        """
        need = self._access.get(method, Access.ANYONE)
        token = bearer_token(metadata)
        if token is None:
            if need is Access.ANYONE:
                return None
            raise unauthenticated(
                "this call needs a seat token: send `authorization: Bearer <token>`",
                missing=True,
            )
        principal = self._tokens.find(token) if token else None
        if principal is None:
            if need is Access.ANYONE:
                return None
            table_id = self._tokens.gone(token) if token else None
            if table_id is not None:
                raise not_found(
                    "NO_SUCH_TABLE",
                    f"table {table_id!r} is no longer on this host (its match was archived, "
                    "or it was removed)",
                )
            self._limits.guess(peer)
            raise unauthenticated(
                "the token is not one this host gave out (or its seat was given up)"
            )
        if need is Access.SEAT and principal.is_spectator:
            raise permission_denied("SPECTATOR", "a spectator token cannot act for a seat")
        return principal

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        method = handler_call_details.method
        wrapped = self._wrapped.get(method)
        if wrapped is None:
            handler = await continuation(handler_call_details)
            if handler is None:
                return handler
            wrapped = self._wrapped[method] = self._wrap(method, handler)
        return wrapped

    @contextlib.asynccontextmanager
    async def _answering(
        self, method: str, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[None]:
        """Around one call: its token checked and its principal made current, then any
        refusal (the token's or the handler's) answered with its rich status."""
        peer = context.peer()
        try:
            self._limits.request(peer)
            principal = self._authenticate(method, context.invocation_metadata(), peer)
            if principal is not None:
                self._limits.seat_request(principal.table_id, principal.seat)
            _current.set(principal)
            yield
        except NotImplementedError:
            # A method a standard service declares and does not serve (health's List): its
            # generated stub raises this, which gRPC would log as a traceback per call.
            await self._refuse(
                context,
                Refusal(
                    grpc.StatusCode.UNIMPLEMENTED,
                    "NOT_SERVED",
                    f"this host does not serve {method}",
                ),
            )
        except Refusal as refusal:
            if refusal.reason == "TOO_MANY_REQUESTS":
                await self._limits.slow_down(peer)
            await self._refuse(context, refusal)

    async def _refuse(self, context: grpc.aio.ServicerContext[Any, Any], refusal: Refusal) -> None:
        # abort_with_status raises: the call ends with that status, nothing is swallowed.
        lang = metadata_value(context.invocation_metadata(), "accept-language")
        await context.abort_with_status(refusal.to_status(lang))

    def _decoded(self, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """Refuse an undecodable request: INVALID_ARGUMENT, logged at most once a minute for
        one client address."""
        if not isinstance(request, Malformed):
            return
        address = address_of(context.peer())
        if self._limits.log.due(f"malformed {address}"):
            log.warning("undecodable requests from %s (%s); refused", address, request.error)
        raise malformed(f"the request's bytes are not a valid message ({request.error})")

    def _wrap(
        self, method: str, handler: grpc.RpcMethodHandler[Any, Any]
    ) -> grpc.RpcMethodHandler[Any, Any]:
        """The method's handler, checking the token first; built once per method."""
        if handler.unary_unary is not None:
            inner_unary = handler.unary_unary

            async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                async with self._answering(method, context):
                    self._decoded(request, context)
                    # The stubs type handlers as the sync server's; an aio server's are
                    # coroutines that take the aio context.
                    return await inner_unary(request, context)  # type: ignore[arg-type]

            return grpc.unary_unary_rpc_method_handler(
                unary,
                request_deserializer=_safe(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._streaming(method, handler.unary_stream, streamed=False),
                request_deserializer=_safe(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream is not None:
            return grpc.stream_stream_rpc_method_handler(
                self._streaming(method, handler.stream_stream, streamed=True),
                request_deserializer=_safe(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.stream_unary is not None:
            inner_many = handler.stream_unary

            async def many(requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                async with self._answering(method, context):
                    each = self._each_request(requests, context, method not in self._counts_itself)
                    return await inner_many(each, context)  # type: ignore[arg-type]

            return grpc.stream_unary_rpc_method_handler(
                many,
                request_deserializer=_safe(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        return handler

    async def _each_request(
        self,
        requests: AsyncIterator[Any],
        context: grpc.aio.ServicerContext[Any, Any],
        counted: bool,
    ) -> AsyncIterator[Any]:
        """A streamed call's requests, each one decoded and, when ``counted``, counted like a
        call of its own (the first was counted as the call)."""
        first = True
        async for request in requests:
            if counted and not first:
                self._limits.request(context.peer())
            first = False
            self._decoded(request, context)
            yield request

    def _streaming(
        self, method: str, inner: Callable[..., Any], *, streamed: bool
    ) -> Callable[..., Any]:
        """A handler that streams its responses, checked like a unary one.

        An aio servicer streams in one of two ways: an async generator (the host's own),
        or a coroutine that writes with ``context.write`` (the standard health service's
        ``Watch``); the wrapper takes the inner handler's way, as gRPC tells them apart by it.
        """

        def given(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if streamed:  # the requests' iterator: each decoded and counted as it comes
                return self._each_request(request, context, method not in self._counts_itself)
            self._decoded(request, context)
            return request

        if inspect.isasyncgenfunction(inner):

            async def generated(
                request: Any, context: grpc.aio.ServicerContext[Any, Any]
            ) -> AsyncIterator[Any]:
                async with self._answering(method, context):
                    async for response in inner(given(request, context), context):
                        yield response

            return generated

        async def written(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            async with self._answering(method, context):
                await inner(given(request, context), context)

        return written
