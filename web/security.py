"""PIN guard for a server other devices can reach, and the Host check for a loopback one.

The PIN is never stored in the cookie: the cookie holds an HMAC of it under a key
made at start, so it is useless after a restart and cannot be read back as the PIN.
Wrong tries are throttled per client so a short PIN cannot be guessed by brute force.

A loopback server has no PIN, so a web page on another site could otherwise post to
it from the user's own browser: state-changing requests must come from the app's own
origin, with a content type a cross-site form cannot send (see `cross_site_reason`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

COOKIE = "escalero_pin"
FREE_TRIES = 5  # wrong PINs a client may make before it must wait
BASE_LOCK_SECONDS = 2.0  # the first wait; each further wrong try doubles it ...
MAX_LOCK_SECONDS = 900.0  # ... up to 15 minutes
FORGET_SECONDS = 3600.0  # a client's wrong tries are forgotten an hour after its last one
MAX_CLIENTS = 10_000  # tracked addresses; the oldest are forgotten first
MIN_PIN_LEN = 4
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
# Host names a test adds (TestClient's "testserver"); none in production.
TEST_HOSTS: frozenset[str] = frozenset()


def generate_pin() -> str:
    return f"{secrets.randbelow(10**6):06d}"


@dataclass
class _Strikes:
    failures: int
    last: float
    locked_until: float


class PinGuard:
    """Checks PINs; wrong tries are throttled per client address with a doubling wait.

    Throttling per address (not globally) means one guesser cannot lock everyone else
    out; the doubling wait makes even a 4-digit PIN take days to guess from one address.
    """

    def __init__(self, pin: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._pin = pin
        self.clock = clock  # seconds, monotonic (a test may give its own)
        self._key = secrets.token_bytes(32)
        self._clients: OrderedDict[str, _Strikes] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def token(self) -> str:
        return hmac.new(self._key, self._pin.encode(), hashlib.sha256).hexdigest()

    def cookie_ok(self, value: str | None) -> bool:
        return value is not None and value != "" and hmac.compare_digest(value, self.token)

    def wait_seconds(self, client: str, now: float | None = None) -> float:
        """How long `client` must wait before its next try (0 when it may try now)."""
        now = self.clock() if now is None else now
        with self._lock:
            strikes = self._current(client, now)
            return max(0.0, strikes.locked_until - now) if strikes else 0.0

    def try_pin(self, pin: str, client: str = "", now: float | None = None) -> str:
        """'ok', 'wrong' or 'locked' (this client must wait; the PIN is not even checked)."""
        now = self.clock() if now is None else now
        with self._lock:
            strikes = self._current(client, now)
            if strikes and now < strikes.locked_until:
                return "locked"
            if hmac.compare_digest(pin.strip().encode(), self._pin.encode()):
                self._clients.pop(client, None)
                return "ok"
            if strikes is None:
                strikes = self._clients[client] = _Strikes(0, now, now)
                while len(self._clients) > MAX_CLIENTS:
                    self._clients.popitem(last=False)
            strikes.failures += 1
            strikes.last = now
            self._clients.move_to_end(client)
            over = strikes.failures - FREE_TRIES
            if over >= 0:
                strikes.locked_until = now + min(MAX_LOCK_SECONDS, BASE_LOCK_SECONDS * 2**over)
            return "wrong"

    def _current(self, client: str, now: float) -> _Strikes | None:
        strikes = self._clients.get(client)
        if strikes and now - strikes.last > FORGET_SECONDS and now >= strikes.locked_until:
            del self._clients[client]
            return None
        return strikes


def host_is_loopback_name(host_header: str | None) -> bool:
    """Host header names this machine (guards a loopback server against DNS rebinding)."""
    if not host_header:
        return False
    host = host_header.rsplit(":", 1)[0] if not host_header.endswith("]") else host_header
    return host.lower() in LOOPBACK_HOSTS or host.lower() in TEST_HOSTS


# Content types a cross-site HTML form (or a CORS "simple" request) can send.
FORM_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: under it Chromium posts the app's own forms with `Origin: null`.
    # same-origin sends the origin (and referrer) to the app itself and nothing elsewhere.
    "Referrer-Policy": "same-origin",
}
CROSS_SITE = "err_cross_site"  # the catalog key (web.i18n) of the refusal


def cross_site_reason(method: str, headers: Mapping[str, str]) -> str | None:
    """The catalog key of why a state-changing request looks cross-site (CROSS_SITE), or
    None when it may go on.

    Browsers send Origin (and Sec-Fetch-Site) with every cross-origin POST/DELETE;
    a tool such as curl sends neither and is not a browser acting for someone else.
    `Origin: null` (a sandboxed frame, a data: page, or a form whose page hides its
    referrer) counts as the app's own only when the browser says so in Sec-Fetch-Site.
    """
    if method in ("GET", "HEAD", "OPTIONS"):
        return None
    origin = headers.get("origin")
    fetch_site = headers.get("sec-fetch-site")
    if origin == "null":
        return None if fetch_site == "same-origin" else CROSS_SITE
    if origin is not None:
        if urlsplit(origin).netloc.lower() != (headers.get("host") or "").lower():
            return CROSS_SITE
    elif fetch_site in ("cross-site", "same-site"):
        return CROSS_SITE
    return None


def content_type(headers: Mapping[str, str]) -> str:
    return (headers.get("content-type") or "").split(";")[0].strip().lower()
