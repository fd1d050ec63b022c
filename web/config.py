"""Where the web app keeps its data, and the limits it enforces."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

MAX_UPLOAD_BYTES = 25 * 1024 * 1024  # a 50 MP HEIC is ~15 MB; anything larger is no phone photo
LEDGER_FILE = "ledger.sqlite3"


def default_data_dir() -> Path:
    """$XDG_DATA_HOME/escalero, else ~/.local/share/escalero (XDG base directory spec)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "escalero"


def is_loopback(host: str) -> bool:
    """True for hosts only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: may resolve to anything, so treat it as public


@dataclass(frozen=True)
class WebConfig:
    """Settings for one app instance. `pin=None` means no PIN is asked (loopback only)."""

    db_path: Path
    pin: str | None = None
    max_upload_bytes: int = MAX_UPLOAD_BYTES

    @property
    def data_dir(self) -> Path:
        return self.db_path.parent

    @classmethod
    def default(cls, db: str | Path | None = None, pin: str | None = None) -> WebConfig:
        path = Path(db).expanduser() if db else default_data_dir() / LEDGER_FILE
        return cls(db_path=path.resolve(), pin=pin)
