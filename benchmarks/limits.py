"""`escalero serve` under hostile load, on loopback only: server memory and who is served.

    .venv/bin/python -m benchmarks.limits [--uploads 8] [--connections 1100] [--slow 130]

Starts the real server on 127.0.0.1 (a free port, a temporary ledger) with the usual file
limit (`ulimit -n 1024`), then:

1. F4: `--uploads` uploads at once of a 16-bit RGBA PNG of 7000x7000 (49 MP in ~390 kB):
   the answers, the server's peak RSS (VmHWM) and its RSS once they are done.
2. F5: `--connections` half-open connections from 127.0.0.2 (connected, nothing sent),
   held while a phone on 127.0.0.1 asks for /api/rules ten times; then a body sent at
   1 byte a second for up to `--slow` seconds: when the server cuts it off. The server's
   RSS, and its log: bytes, lines and tracebacks.

Nothing is sent anywhere but 127.0.0.1/127.0.0.2, and every wait is bounded.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from benchmarks.load import HOST, free_port

ROOT = Path(__file__).resolve().parents[1]
ATTACKER = "127.0.0.2"  # loopback too (Linux routes 127.0.0.0/8 to lo)
FILE_LIMIT = 1024


def png_bomb(width: int = 7000, height: int = 7000) -> bytes:
    """A 16-bit RGBA PNG of width x height, white, compressed to a few hundred kB."""
    row = b"\0" + b"\xff" * (width * 8)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))

    ihdr = struct.pack(">IIBBBBB", width, height, 16, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data)
            + chunk(b"IEND", b""))


def rss_mb(pid: int, field: str) -> float:
    """VmRSS (now) or VmHWM (peak) of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _limit_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


def _start(d: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": d, "PYTHONUNBUFFERED": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "escalero", "serve", "--host", HOST, "--port", str(port),
         "--db", str(Path(d) / "ledger.sqlite3")], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=log.open("wb"), preexec_fn=_limit_files)
    base = f"http://{HOST}:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            httpx.get(base + "/api/rules", timeout=5)
            return server, base
        except httpx.TransportError:
            time.sleep(0.3)
    raise SystemExit("escalero serve did not start: " + log.read_text()[-500:])


def uploads(server: subprocess.Popen[bytes], base: str, count: int) -> None:
    bomb = png_bomb()
    print(f"F4: {count} uploads at once of a {len(bomb) / 1000:.0f} kB 16-bit RGBA PNG "
          "declaring 7000x7000 (49 MP)")
    before = rss_mb(server.pid, "VmRSS")
    t0 = time.perf_counter()

    def one(_: int) -> int | str:
        try:
            return httpx.post(base + "/api/scan", content=bomb, timeout=600,
                              headers={"Content-Type": "image/png"}).status_code
        except httpx.HTTPError as err:
            return type(err).__name__

    with ThreadPoolExecutor(count) as pool:
        statuses = list(pool.map(one, range(count)))
    wall = time.perf_counter() - t0
    time.sleep(1.0)
    print(f"  answers {sorted(map(str, statuses))} in {wall:.1f} s; server RSS before "
          f"{before:.0f} MB, peak {rss_mb(server.pid, 'VmHWM'):.0f} MB, after "
          f"{rss_mb(server.pid, 'VmRSS'):.0f} MB")


def connections(server: subprocess.Popen[bytes], base: str, count: int, slow: float,
                log: Path) -> None:
    print(f"F5: {count} half-open connections from {ATTACKER} (file limit {FILE_LIMIT})")
    port = int(base.rsplit(":", 1)[1])
    log_before = log.stat().st_size
    held: list[socket.socket] = []
    failed = 0
    for _ in range(count):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.bind((ATTACKER, 0))
            s.connect((HOST, port))
            held.append(s)
        except OSError:
            failed += 1
            s.close()
    time.sleep(1.0)
    alive = 0
    for s in held:  # a refused connection reads as closed (b"" or a reset)
        s.setblocking(False)
        try:
            alive += s.recv(1) != b""
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    times, ok = [], 0
    for _ in range(10):
        t0 = time.perf_counter()
        with contextlib.suppress(httpx.HTTPError):
            ok += httpx.get(base + "/api/rules", timeout=10).status_code == 200
        times.append(time.perf_counter() - t0)
    print(f"  {len(held)} connected ({failed} could not), {alive} still open after 1 s; "
          f"a phone on {HOST}: {ok}/10 answered, slowest {max(times) * 1000:.0f} ms; "
          f"server RSS {rss_mb(server.pid, 'VmRSS'):.0f} MB")
    for s in held:
        s.close()
    if slow > 0:
        slow_body(port, slow)
    time.sleep(1.0)
    text = log.read_bytes()[log_before:].decode(errors="replace")
    print(f"  server log during F5: {len(text)} bytes, {len(text.splitlines())} lines, "
          f"{text.count('Traceback')} tracebacks")
    for line in text.splitlines()[:4]:
        print("    " + line[:150])


def slow_body(port: int, slow: float) -> None:
    """A photo upload sent at 1 byte a second: when (and how) the server cuts it off."""
    s = socket.create_connection((HOST, port), timeout=slow + 30)
    s.sendall(b"POST /api/scan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\n"
              b"Content-Length: 1000000\r\n\r\n")
    t0 = time.perf_counter()
    answer = b""
    s.setblocking(False)
    while time.perf_counter() - t0 < slow and not answer:
        try:
            s.send(b"\xff")
        except OSError:
            break
        time.sleep(1.0)
        try:
            answer = s.recv(200)
        except BlockingIOError:
            pass
        except OSError:
            break
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "no answer"
    print(f"  a body at 1 byte/s: {status!r} after {time.perf_counter() - t0:.0f} s")
    s.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=8, help="F4 uploads at once (8)")
    parser.add_argument("--connections", type=int, default=1100,
                        help="F5 half-open connections (1100)")
    parser.add_argument("--slow", type=float, default=130.0,
                        help="seconds to keep up a 1 byte/s body (130; 0: skip)")
    args = parser.parse_args(argv)
    if not 0 <= args.uploads <= 16 or not 0 <= args.connections <= 2000 \
            or not 0 <= args.slow <= 600:
        parser.error("keep it bounded: --uploads 0-16, --connections 0-2000, --slow 0-600")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.connections + 256  # this process holds the half-open connections
    if soft < need <= hard or hard == resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "server.log"
        server, base = _start(d, log)
        try:
            print(f"server: escalero serve on {base}, pid {server.pid}, {os.cpu_count()} "
                  f"CPUs; idle RSS {rss_mb(server.pid, 'VmRSS'):.0f} MB")
            if args.uploads:
                uploads(server, base, args.uploads)
            if args.connections or args.slow:
                connections(server, base, args.connections, args.slow, log)
            print(f"server peak RSS over the run: {rss_mb(server.pid, 'VmHWM'):.0f} MB")
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
