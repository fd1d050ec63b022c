"""Running the app under uvicorn with the limits a server on the table's network needs.

- Header timeout: a connection must send its request's headers within HEADER_SECONDS
  (counted from the connection, or from a kept-alive request's first byte); an idle
  kept-alive connection is closed after KEEP_ALIVE_SECONDS. The body's deadlines are
  `web.limits.RequestLimits`'.
- Connection limit: at most `max_connections` open connections (kept well under the
  process's file limit, which is raised to its hard limit), and at most
  MAX_CLIENT_CONNECTIONS from one address (a trusted proxy excepted), so half-open
  connections from one machine cannot shut the other phones out. A connection over the
  limit is closed at once.
- Quiet logs: refused connections, late headers, the event loop's errors and uvicorn's
  warnings are one line each, at most one line per kind every LOG_INTERVAL_SECONDS with
  a count of those left out, never a traceback.
- Forwarded headers (X-Forwarded-For) are believed only from `--proxy` addresses;
  otherwise the peer's own address counts (the PIN throttle is per address).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0
KEEP_ALIVE_SECONDS = 5.0
MAX_CONNECTIONS = 512
MAX_CLIENT_CONNECTIONS = 64  # a phone's browser opens about 6
RESERVED_FILES = 64  # file descriptors kept free of connections (ledger, photos, models)
WANTED_FILES = 4096
LOG_INTERVAL_SECONDS = 10.0
MAX_HEADER_BYTES = 16 * 1024  # h11's limit on a request's headers
# Connections taken from the listening socket at a time (and its queue): each is open
# until its protocol refuses it, so a burst of thousands cannot run the files out at once.
BACKLOG = 128


class RateLimitedLog:
    """One line per event, at most one per kind every `interval` seconds; the next line of
    a kind says how many were left out."""

    def __init__(self, interval: float = LOG_INTERVAL_SECONDS,
                 clock: Callable[[], float] = time.monotonic,
                 write: Callable[[str], None] | None = None) -> None:
        self.interval = interval
        self.clock = clock
        self.write = write or (lambda line: print(line, file=sys.stderr, flush=True))
        self._last: dict[str, float] = {}
        self._left_out: Counter[str] = Counter()

    def note(self, kind: str, line: str) -> bool:
        """Log `line` unless a line of this kind went out less than `interval` ago."""
        now = self.clock()
        last = self._last.get(kind)
        if last is not None and now - last < self.interval:
            self._left_out[kind] += 1
            return False
        self._last[kind] = now
        left_out = self._left_out.pop(kind, 0)
        more = f" ({left_out} more since the last such line)" if left_out else ""
        self.write(f"escalero serve: {line}{more}")
        return True


class Connections:
    """Open connections, in all and per client address; `admit` refuses past the limits."""

    def __init__(self, limit: int, per_client: int, trusted: Sequence[str] = (),
                 log: RateLimitedLog | None = None) -> None:
        self.limit = limit
        self.per_client = per_client
        self.trusted = tuple(ipaddress.ip_network(t, strict=False) for t in trusted)
        self.log = log or RateLimitedLog()
        self.open: Counter[str] = Counter()
        self.total = 0

    def is_trusted(self, client: str) -> bool:
        """A --proxy address: every phone comes through it, so no per-address limit."""
        try:
            address = ipaddress.ip_address(client)
        except ValueError:
            return False
        return any(address in network for network in self.trusted)

    def admit(self, client: str) -> bool:
        over_client = self.open[client] >= self.per_client and not self.is_trusted(client)
        if self.total >= self.limit or over_client:
            why = (f"{self.open[client]} open from that address" if over_client
                   else f"{self.total} open, the limit")
            self.log.note("refused", f"refused a connection from {client or '?'} ({why})")
            return False
        self.open[client] += 1
        self.total += 1
        return True

    def release(self, client: str) -> None:
        self.total -= 1
        self.open[client] -= 1
        if self.open[client] <= 0:
            del self.open[client]


def protocol_class(connections: Connections, header_seconds: float = HEADER_SECONDS
                   ) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the connection limit and the header timeout."""

    class LimitedH11(H11Protocol):
        _admitted = False
        _peer = ""
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            self._peer = str(peer[0]) if isinstance(peer, tuple | list) and peer else ""
            if not connections.admit(self._peer):
                transport.abort()  # closed at once: no file, no task held for it
                return
            self._admitted = True
            super().connection_made(transport)
            self._arm()

        def _awaiting_headers(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            self._header_timer = self.loop.call_later(header_seconds, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def data_received(self, data: bytes) -> None:
            if self._header_timer is None and self._awaiting_headers():
                self._arm()  # a kept-alive connection's next request starts
            super().data_received(data)
            if not self._awaiting_headers():
                self._disarm()

        def _headers_late(self) -> None:
            self._header_timer = None
            if self._awaiting_headers() and not self.transport.is_closing():
                connections.log.note("headers", f"closed a connection from {self._peer or '?'}"
                                     f": no request within {header_seconds:.0f} s")
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if not self._admitted:
                return
            self._admitted = False
            self._disarm()
            connections.release(self._peer)
            super().connection_lost(exc)

    return LimitedH11


class QuietLogFilter(logging.Filter):
    """uvicorn's own log lines through the rate-limited log: one line, no traceback."""

    def __init__(self, log: RateLimitedLog) -> None:
        super().__init__()
        self.log = log

    def filter(self, record: logging.LogRecord) -> bool:
        line = record.getMessage().splitlines()[0] if record.getMessage() else record.name
        if record.exc_info and record.exc_info[1] is not None:
            err = record.exc_info[1]
            line += f" ({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})"
        self.log.note(line[:40], line[:300])
        return False


def loop_error_handler(log: RateLimitedLog) -> Callable[[asyncio.AbstractEventLoop,
                                                         dict[str, Any]], None]:
    """The event loop's errors (an accept() out of files, a dropped transport) as one line."""

    def handle(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message") or "event loop error")
        err = context.get("exception")
        log.note(f"loop {message[:40]}", message + (f" ({err})" if err else ""))

    return handle


def raise_file_limit(wanted: int = WANTED_FILES) -> int:
    """The process's file limit (soft), raised towards `wanted` as far as the hard limit
    allows; 1024 where it cannot be read."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        return int(soft) if soft != resource.RLIM_INFINITY else wanted
    except (ImportError, OSError, ValueError):
        return 1024


def connection_limit(files: int) -> int:
    return max(8, min(MAX_CONNECTIONS, files - RESERVED_FILES))


class Server(uvicorn.Server):
    """uvicorn's server with the event loop's errors logged by the rate-limited log."""

    def __init__(self, config: uvicorn.Config, log: RateLimitedLog) -> None:
        super().__init__(config)
        self.log = log

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(loop_error_handler(self.log))
        await super().serve(sockets)


def make_config(app: Any, host: str, port: int, proxy: Sequence[str] = (),
                log: RateLimitedLog | None = None) -> uvicorn.Config:
    """uvicorn's settings for `escalero serve`: the limits above; X-Forwarded-For only
    from the addresses in `proxy` (none: the peer's own address counts)."""
    log = log or RateLimitedLog()
    connections = Connections(connection_limit(raise_file_limit()), MAX_CLIENT_CONNECTIONS,
                              proxy, log)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False,
        http=protocol_class(connections), timeout_keep_alive=int(KEEP_ALIVE_SECONDS),
        proxy_headers=bool(proxy), forwarded_allow_ips=list(proxy) if proxy else [],
        server_header=False, h11_max_incomplete_event_size=MAX_HEADER_BYTES, backlog=BACKLOG)
    quiet = QuietLogFilter(log)
    for name in ("uvicorn", "uvicorn.error", "asyncio"):
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, QuietLogFilter)]:
            logger.removeFilter(old)
        logger.addFilter(quiet)
    return config


def serve(app: Any, host: str, port: int, proxy: Sequence[str] = ()) -> None:
    """Run the app until stopped (Ctrl-C)."""
    log = RateLimitedLog()
    Server(make_config(app, host, port, proxy, log), log).run()
