"""PIN guard for a server other devices can reach, and the Host check for a loopback one.

The PIN is never stored in the cookie: the cookie holds an HMAC of it under a key
made at start, so it is useless after a restart and cannot be read back as the PIN.
Wrong tries are rate-limited so a short PIN cannot be guessed by brute force.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque

COOKIE = "escalero_pin"
MAX_FAILURES = 10  # wrong PINs allowed per LOCK_SECONDS before every try is refused
LOCK_SECONDS = 60.0
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1", "testserver"})


def generate_pin() -> str:
    return f"{secrets.randbelow(10**6):06d}"


class PinGuard:
    def __init__(self, pin: str) -> None:
        self._pin = pin
        self._key = secrets.token_bytes(32)
        self._failures: deque[float] = deque()
        self._lock = threading.Lock()

    @property
    def token(self) -> str:
        return hmac.new(self._key, self._pin.encode(), hashlib.sha256).hexdigest()

    def cookie_ok(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(value, self.token)

    def try_pin(self, pin: str, now: float | None = None) -> str:
        """'ok', 'wrong' or 'locked' (too many wrong tries in the last minute)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            while self._failures and now - self._failures[0] > LOCK_SECONDS:
                self._failures.popleft()
            if len(self._failures) >= MAX_FAILURES:
                return "locked"
            if hmac.compare_digest(pin.strip().encode(), self._pin.encode()):
                return "ok"
            self._failures.append(now)
            return "wrong"


def host_is_loopback_name(host_header: str | None) -> bool:
    """Host header names this machine (guards a loopback server against DNS rebinding)."""
    if not host_header:
        return False
    host = host_header.rsplit(":", 1)[0] if not host_header.endswith("]") else host_header
    return host.lower() in LOOPBACK_HOSTS
