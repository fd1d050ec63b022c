"""The server's limits under hostile load (issue 36, F4-F11): memory read from a photo's
header, header and body deadlines, the connection limit and a quiet log, forwarded
headers, form and body sizes, broken ledgers, odd digits and one name limit. No test
waits on a clock: deadlines run on a clock the test moves."""

from __future__ import annotations

import argparse
import asyncio
import functools
import io
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from escalero.web import pixel_budget, recognizer, scanning, security, server
from escalero.web.app import create_app
from escalero.web.cli import run, settings
from escalero.web.config import WebConfig
from escalero.web.limits import RequestLimits
from fastapi.testclient import TestClient


def sheet(a: str = "Anna", b: str = "Ben") -> dict:
    return {"sides": [{"name": a, "columns": [{"nines": 3}, {}, {}]},
                      {"name": b, "columns": [{"nines": 4}, {}, {}]}]}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    with TestClient(create_app(WebConfig(db_path=tmp_path / "ledger.sqlite3"))) as c:
        yield c


def png_header(width: int, height: int, bit_depth: int = 16, color_type: int = 6) -> bytes:
    """A PNG that declares its size (and holds almost nothing): what a header check sees."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))

    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


def call_asgi(app: Any, method: str, path: str, headers: dict[str, str],
              messages: list[dict], clock: Any = None) -> tuple[int, dict]:
    """One request straight into the ASGI app; `messages` is what receive() hands out
    (the last one repeats). Returns the status and the JSON body sent."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "scheme": "http", "server": ("127.0.0.1", 8000),
             "client": ("127.0.0.1", 5555),
             "headers": [(k.lower().encode(), v.encode()) for k, v in
                         {"host": "127.0.0.1", **headers}.items()]}
    sent: list[dict] = []
    queue = list(messages)

    async def receive() -> dict:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], json.loads(body) if body else {}


# --- F4: the pixel budget bounds memory before decoding -----------------------------------

def test_decoding_memory_is_read_from_the_header() -> None:
    """A 16-bit RGBA PNG declaring 49 MP costs what Pillow's conversions need (~24 bytes a
    pixel), so two never decode together; four 12 MP phone JPEGs still do."""
    rgba = pixel_budget.decode_cost(png_header(7000, 7000))
    assert rgba is not None and (rgba.width, rgba.height) == (7000, 7000)
    assert rgba.memory >= 24 * 49_000_000
    assert 2 * rgba.memory > pixel_budget.SCAN_MEMORY  # runs alone
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4000, 3000), "white").save(buf, "JPEG")
    phone = pixel_budget.decode_cost(buf.getvalue())
    assert phone is not None and 4 * phone.memory <= pixel_budget.SCAN_MEMORY
    assert pixel_budget.decode_cost(b"\x89PNG\r\n\x1a\n garbage") is None


def test_a_scan_holds_its_decoding_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    from escalero.scan import pipeline

    held: list[int] = []

    def scan(*_args: object, **_kw: object) -> None:
        held.append(pixel_budget.MEMORY._used)
        raise pipeline.SheetNotFoundError("no sheet")

    monkeypatch.setattr(pipeline, "scan_photo", scan)
    monkeypatch.setattr(recognizer, "shared_recognizer", lambda: None)
    data = png_header(7000, 7000)
    with pytest.raises(pipeline.SheetNotFoundError):
        scanning.scan_bytes(data, "de")
    assert held == [min(pixel_budget.decode_cost(data).memory, pixel_budget.SCAN_MEMORY)]
    assert pixel_budget.MEMORY._used == 0


# --- F5: header and body deadlines, the connection limit, a quiet log --------------------

class FakeTransport:
    def __init__(self, peer: str = "127.0.0.2") -> None:
        self.peer = peer
        self.closed = self.aborted = False
        self.written = b""

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": (self.peer, 40000), "sockname": ("127.0.0.1", 8000)}.get(name,
                                                                                  default)

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def write(self, data: bytes) -> None:
        self.written += data

    def pause_reading(self) -> None: ...

    def resume_reading(self) -> None: ...


class FakeLoop:
    """call_later's callbacks are kept, to be run by the test (no real clock)."""

    def __init__(self) -> None:
        self.timers: list[Any] = []

    def call_later(self, _delay: float, callback: Any) -> Any:
        loop = self

        class Handle:
            cancelled = False

            def cancel(self) -> None:
                self.cancelled = True
                loop.timers.remove(self)

            def fire(self) -> None:
                loop.timers.remove(self)
                callback()

        handle = Handle()
        self.timers.append(handle)
        return handle

    def create_task(self, coro: Any, **_kw: object) -> Any:
        coro.close()

        class Task:
            def add_done_callback(self, _cb: object) -> None: ...

        return Task()


class Nothing:
    async def __call__(self, scope: object, receive: object, send: object) -> None: ...


@functools.cache
def loaded_config() -> Any:
    import uvicorn

    config = uvicorn.Config(Nothing(), ws="none", log_level="warning")
    config.load()
    return config


def protocol(connections: server.Connections, loop: FakeLoop) -> Any:
    from uvicorn.server import ServerState

    config = loaded_config()
    cls = server.protocol_class(connections)
    return cls(config=config, server_state=ServerState(), app_state={}, _loop=loop)


def test_headers_must_arrive_in_time() -> None:
    lines: list[str] = []
    log = server.RateLimitedLog(clock=lambda: 0.0, write=lines.append)
    connections = server.Connections(10, 10, log=log)
    loop = FakeLoop()
    idle = FakeTransport()
    protocol(connections, loop).connection_made(idle)
    assert len(loop.timers) == 1
    loop.timers[0].fire()  # the header deadline passes with nothing sent
    assert idle.closed and len(lines) == 1 and "no request within" in lines[0]
    prompt = FakeTransport()
    p = protocol(connections, loop)
    p.connection_made(prompt)
    p.data_received(b"GET /api/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert loop.timers == [] and not prompt.closed  # headers in: no deadline left


def test_connections_over_the_limit_are_closed_and_logged_once_in_a_while() -> None:
    now = [0.0]
    lines: list[str] = []
    log = server.RateLimitedLog(interval=10, clock=lambda: now[0], write=lines.append)
    connections = server.Connections(limit=50, per_client=3, log=log)
    loop = FakeLoop()
    held = [FakeTransport("127.0.0.2") for _ in range(1100)]
    for t in held:
        protocol(connections, loop).connection_made(t)
    assert sum(not t.aborted for t in held) == 3  # one address cannot take every slot
    phone = FakeTransport("192.168.1.20")
    p = protocol(connections, loop)
    p.connection_made(phone)
    assert not phone.aborted  # another phone is still served
    assert len(lines) == 1 and "refused a connection from 127.0.0.2" in lines[0]
    now[0] = 11.0
    protocol(connections, loop).connection_made(FakeTransport("127.0.0.2"))
    assert len(lines) == 2 and "1096 more" in lines[1]
    p.connection_lost(None)
    assert connections.open["192.168.1.20"] == 0 and connections.total == 3
    behind_proxy = server.Connections(limit=50, per_client=3, trusted=["127.0.0.0/8"], log=log)
    proxied = [FakeTransport("127.0.0.1") for _ in range(10)]
    for t in proxied:
        protocol(behind_proxy, loop).connection_made(t)
    assert not any(t.aborted for t in proxied)  # every phone comes through the proxy


def test_loop_and_server_errors_are_one_line_without_tracebacks() -> None:
    import logging

    lines: list[str] = []
    log = server.RateLimitedLog(clock=lambda: 0.0, write=lines.append)
    handle = server.loop_error_handler(log)
    for _ in range(10_000):
        handle(None, {"message": "socket.accept() out of system resource",  # type: ignore
                      "exception": OSError(24, "Too many open files")})
    quiet = server.QuietLogFilter(log)
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        record = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1,
                                   "Exception in ASGI application", (), sys.exc_info())
    assert quiet.filter(record) is False
    assert len(lines) == 2 and not any("Traceback" in line for line in lines)
    assert "Too many open files" in lines[0] and "ValueError: boom" in lines[1]


def test_a_slow_body_gets_408_and_the_app_sees_a_client_gone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """1 byte per (test) second: the whole-body deadline ends it, in the page's language."""
    now = [0.0]

    def clock() -> float:
        now[0] += 7.0
        return now[0]

    app = RequestLimits(create_app(WebConfig(db_path=tmp_path / "l.sqlite3")), clock=clock)
    status, body = call_asgi(app, "POST", "/api/scan", {"content-type": "image/jpeg"},
                             [{"type": "http.request", "body": b"\xff", "more_body": True}])
    assert status == 408 and "zu langsam" in body["error"]
    assert "internal error" not in capsys.readouterr().err


def test_a_one_byte_a_second_body_is_cut_off_within_seconds(tmp_path: Path) -> None:
    """Slowloris: far under 1 kB/s on average, it ends after the grace seconds, long
    before the whole-body deadline."""
    from escalero.web import limits

    now = [0.0]
    calls = [0]

    def clock() -> float:
        return now[0]

    class OneByte:
        async def __call__(self) -> dict:
            calls[0] += 1
            now[0] += 1.0
            return {"type": "http.request", "body": b"\xff", "more_body": True}

    app = RequestLimits(create_app(WebConfig(db_path=tmp_path / "l.sqlite3")), clock=clock)
    sent: list[dict] = []

    async def send(m: dict) -> None:
        sent.append(m)

    scope = {"type": "http", "method": "POST", "path": "/api/scan", "query_string": b"",
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"image/jpeg")],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000), "scheme": "http",
             "root_path": "", "raw_path": b"/api/scan", "http_version": "1.1",
             "asgi": {"version": "3.0"}}
    asyncio.run(app(scope, OneByte(), send))
    assert sent[0]["status"] == 408
    assert calls[0] <= limits.BODY_GRACE_SECONDS + 2 < limits.BODY_SECONDS


def test_a_body_that_stops_arriving_gets_408(tmp_path: Path) -> None:
    class Never:
        async def __call__(self) -> dict:
            await asyncio.Event().wait()
            return {}

    limits = RequestLimits(create_app(WebConfig(db_path=tmp_path / "l.sqlite3")),
                           idle_seconds=0.0)
    scope_headers = {"content-type": "application/json", "content-length": "10"}
    sent: list[dict] = []

    async def go() -> None:
        async def send(m: dict) -> None:
            sent.append(m)

        scope = {"type": "http", "method": "POST", "path": "/api/settle", "query_string": b"",
                 "headers": [(k.encode(), v.encode()) for k, v in
                             {"host": "127.0.0.1", **scope_headers}.items()],
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000), "scheme": "http",
                 "root_path": "", "raw_path": b"/api/settle", "http_version": "1.1",
                 "asgi": {"version": "3.0"}}
        await limits(scope, Never(), send)

    asyncio.run(go())
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]


# --- F6: X-Forwarded-For only from a configured proxy ------------------------------------

def wrong_pins(tmp_path: Path, proxy: tuple[str, ...]) -> list[int]:
    """Statuses of 8 wrong PINs from 127.0.0.1, each with a new X-Forwarded-For."""
    import httpx

    app = create_app(WebConfig(db_path=tmp_path / "l.sqlite3", pin="4711"))
    config = server.make_config(app, "127.0.0.1", 8000, proxy)
    config.load()

    async def go() -> list[int]:
        transport = httpx.ASGITransport(app=config.loaded_app, client=("127.0.0.1", 4321))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return [(await c.post("/pin", data={"pin": "0000"},
                                  headers={"X-Forwarded-For": f"10.0.0.{i}"})).status_code
                    for i in range(8)]

    return asyncio.run(go())


def test_forwarded_headers_are_believed_only_from_the_proxy(tmp_path: Path) -> None:
    from escalero.web.security import FREE_TRIES

    plain = wrong_pins(tmp_path, ())
    assert plain[:FREE_TRIES] == [403] * FREE_TRIES and 429 in plain  # the peer counts
    assert wrong_pins(tmp_path, ("127.0.0.1/32",)) == [403] * 8  # each forwarded client


def test_proxy_option_is_checked() -> None:
    from escalero.scoring.errors import UsageError
    from escalero.web.cli import proxies

    assert proxies(["127.0.0.1", "10.0.0.0/8"]) == ("127.0.0.1/32", "10.0.0.0/8")
    with pytest.raises(UsageError, match="--proxy"):
        proxies(["*"])


# --- F7: forms and declared sizes --------------------------------------------------------

def test_a_form_with_a_file_part_is_refused_before_reading_it(client: TestClient) -> None:
    r = client.post("/api/print", data={"game": "escalero"},
                    files={"big": ("big.bin", b"\0" * 200_000)})
    assert r.status_code == 413 and "Formular" in r.json()["error"]


def test_a_huge_declared_length_is_refused_at_once(tmp_path: Path) -> None:
    app = create_app(WebConfig(db_path=tmp_path / "l.sqlite3"))
    for path in ("/api/print", "/api/settle", "/api/scan", "/pin"):
        status, body = call_asgi(app, "POST", path, {
            "content-type": "multipart/form-data; boundary=x",
            "content-length": str(10 * 1024**3)},
            [{"type": "http.request", "body": b"", "more_body": True}])
        assert status == 413 and body["error"], path


# --- F8, F9: the ledger ------------------------------------------------------------------

def test_two_players_of_one_name_are_a_400_in_the_page_language(client: TestClient,
                                                                  tmp_path: Path) -> None:
    r = client.post("/api/ledger", json={"sheet": sheet("Anna", "Anna")})
    assert r.status_code == 400
    assert "Zwei Spieler heißen Anna" in r.json()["error"]
    assert str(tmp_path) not in r.json()["error"]
    assert client.get("/api/ledger").json()["games"] == []


@pytest.mark.parametrize("damage", ["deleted", "garbage"])
def test_a_ledger_file_broken_while_running_is_a_503(client: TestClient, tmp_path: Path,
                                                     damage: str) -> None:
    assert client.post("/api/ledger", json={"sheet": sheet()}).status_code == 201
    db = tmp_path / "ledger.sqlite3"
    for f in tmp_path.glob("ledger.sqlite3*"):
        f.unlink()
    if damage == "garbage":
        db.write_bytes(b"this is no database " * 500)
    for path in ("/ledger", "/api/ledger", "/ledger.csv", "/api/roster"):
        r = client.get(path)
        assert r.status_code == 503, path
        if path.startswith("/api/"):
            error = r.json()["error"]
            assert "\n" not in error and "Kassa" in error
    assert client.post("/api/ledger", json={"sheet": sheet()}).status_code == 503
    assert client.get("/api/rules").status_code == 200  # the server goes on
    if damage == "deleted":
        assert not db.exists()  # not silently replaced by an empty ledger


def test_a_ledger_made_read_only_while_running_keeps_its_pages(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read-only (as `chmod a-w` makes it for anyone but root): the pages still show every
    game, a save is a 503 with one line, and nothing is lost."""
    import sqlite3

    assert client.post("/api/ledger", json={"sheet": sheet()}).status_code == 201
    connect = sqlite3.connect

    def read_only(database: str, **kw: Any) -> sqlite3.Connection:
        return connect(str(database).replace("mode=rw", "mode=ro"), **kw)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    for path in ("/ledger", "/api/ledger", "/ledger.csv"):
        assert client.get(path).status_code == 200, path
    r = client.post("/api/ledger", json={"sheet": sheet("Cora", "Dan")})
    assert r.status_code == 503 and "\n" not in r.json()["error"]
    monkeypatch.setattr(sqlite3, "connect", connect)
    assert len(client.get("/api/ledger").json()["games"]) == 1


# --- F10, F11: odd digits, one name limit ------------------------------------------------

@pytest.mark.parametrize(("url", "kw"), [
    ("/api/print", {"data": {"players": "²"}}),
    ("/api/print", {"data": {"pages": "²"}}),
    ("/api/scan?players=²", {"content": b"\xff\xd8\xff", "headers": {
        "Content-Type": "image/jpeg"}}),
])
def test_superscript_digits_are_a_400(client: TestClient, url: str, kw: dict) -> None:
    r = client.post(url, **kw)
    assert r.status_code == 400 and r.json()["error"]


def test_one_name_limit_for_print_settle_and_save(client: TestClient) -> None:
    long = "N" * 41
    r = client.post("/api/print", data={"names": f"Anna\n{long}"})
    assert r.status_code == 400 and "höchstens 40" in r.json()["error"]
    assert client.post("/api/print", data={"names": "Anna\n" + "N" * 40}).status_code == 200
    # A pair of two 40-character names, as a sheet printed for them scans back.
    pair = {"name": "A" * 40 + " & " + "B" * 40, "members": ["A" * 40, "B" * 40],
            "columns": [{"nines": 3}, {}, {}]}
    obj = {"sides": [pair, {"name": "C", "members": ["C", "D"], "columns": [{}, {}, {}]}]}
    assert client.post("/api/settle", json={"sheet": obj}).status_code == 200
    assert client.post("/api/ledger", json={"sheet": obj}).status_code == 201


# --- smaller ones ------------------------------------------------------------------------

def test_testserver_is_no_loopback_name_in_production(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert "testserver" not in security.LOOPBACK_HOSTS
    monkeypatch.setattr(security, "TEST_HOSTS", frozenset())
    with TestClient(create_app(WebConfig(db_path=tmp_path / "l.sqlite3"))) as c:
        assert c.get("/api/rules").status_code == 421
        assert c.get("/api/rules", headers={"Host": "127.0.0.1:8000"}).status_code == 200


def test_a_client_gone_mid_upload_is_no_bug(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    app = create_app(WebConfig(db_path=tmp_path / "l.sqlite3"))
    call_asgi(app, "POST", "/api/scan", {"content-type": "image/jpeg"},
              [{"type": "http.request", "body": b"\xff\xd8\xff", "more_body": True},
               {"type": "http.disconnect"}])
    assert "internal error" not in capsys.readouterr().err


def test_the_pin_comes_from_the_environment_or_a_file_and_is_not_shown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    base = {"host": "0.0.0.0", "port": 8000, "db": str(tmp_path / "l.sqlite3"), "pin": None,
            "pin_file": None, "proxy": []}
    monkeypatch.setenv("ESCALERO_PIN", "80471")
    assert settings(argparse.Namespace(**base))[0].pin == "80471"
    pin_file = tmp_path / "pin"
    pin_file.write_text("5150\n")
    monkeypatch.delenv("ESCALERO_PIN")
    assert settings(argparse.Namespace(**{**base, "pin_file": str(pin_file)}))[0].pin == "5150"
    monkeypatch.setattr(server, "serve", lambda *_a, **_kw: None)
    monkeypatch.setattr("escalero.web.cli.check_port_free", lambda *_a: None)
    assert run(argparse.Namespace(**{**base, "pin_file": str(pin_file)})) == 0
    out = capsys.readouterr().out
    assert "5150" not in out and "PIN required" in out


def test_the_photo_size_message_names_the_photo_s_own_size(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from escalero.scoring.errors import PhotoError
    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", (65000, 900), 255).save(buf, "JPEG")
    monkeypatch.setattr(recognizer, "shared_recognizer", lambda: None)
    with pytest.raises(PhotoError, match="65000x900"):
        scanning.scan_bytes(buf.getvalue(), "en")
