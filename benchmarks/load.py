"""Load on `escalero serve`, on loopback only: concurrent phone uploads and ledger saves.

    .venv/bin/python -m benchmarks.load [--uploads 20] [--saves 200] [--save-clients 8]

Starts the real server on 127.0.0.1 (a free port, a temporary ledger), sends the
committed sample photos (samples/photos/*.jpg) all at once, then the ledger saves,
and prints p50/p95 latency, errors and the server's peak RSS (VmHWM). Nothing is sent
anywhere but 127.0.0.1, and both the count of requests and each one's time are bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = sorted((ROOT / "samples" / "photos").glob("*.jpg"))
HOST = "127.0.0.1"
REQUEST_TIMEOUT = 300.0  # s: a scan waits for a free slot behind the others
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM), from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def timed(call) -> tuple[float, int | str]:
    t0 = time.perf_counter()
    try:
        status: int | str = call().status_code
    except httpx.HTTPError as err:
        status = type(err).__name__
    return time.perf_counter() - t0, status


def report(name: str, results: list[tuple[float, int | str]], ok: set[int]) -> None:
    times = [t for t, _ in results]
    errors = [s for _, s in results if s not in ok]
    print(f"{name}: {len(results)} requests, p50 {percentile(times, 0.5) * 1000:.0f} ms, "
          f"p95 {percentile(times, 0.95) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms, "
          f"errors {len(errors)}" + (f" {sorted(set(map(str, errors)))}" if errors else ""))


def sheet(i: int) -> dict:
    return {"serial": f"LOAD-{i:04d}", "sides": [
        {"name": "Anna", "columns": [{"nines": 1 + i % 5}, {"tens": 4}, {}]},
        {"name": "Ben", "columns": [{"nines": 3}, {"tens": 2 * (1 + i % 5)}, {}]},
        {"name": "Cora", "columns": [{"nines": 2}, {}, {"aces": 18}]}]}


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=20, help="photos sent at once (20)")
    parser.add_argument("--saves", type=int, default=200, help="ledger saves (200)")
    parser.add_argument("--save-clients", type=int, default=8,
                        help="ledger saves in flight at once (8)")
    args = parser.parse_args(argv)
    if not 0 <= args.uploads <= 200 or not 0 <= args.saves <= 5000 \
            or not 1 <= args.save_clients <= 64:
        parser.error("keep it bounded: --uploads 0-200, --saves 0-5000, --save-clients 1-64")
    if args.uploads and not PHOTOS:
        parser.error("no sample photos in samples/photos/")
    return args


def _wait_for(server: subprocess.Popen[str], client: httpx.Client) -> bool:
    """True once the server answers; False if it exits or does not start in time."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            client.get("/api/rules")
            return True
        except httpx.TransportError:
            if server.poll() is not None or time.monotonic() > deadline:
                print("escalero serve did not start:", server.stderr.read()
                      if server.stderr else "", file=sys.stderr)
                return False
            time.sleep(0.2)


def _uploads(client: httpx.Client, count: int) -> None:
    photos = [PHOTOS[i % len(PHOTOS)].read_bytes() for i in range(count)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(count) as pool:
        uploads = list(pool.map(lambda p: timed(lambda: client.post(
            "/api/scan", content=p, headers={"Content-Type": "image/jpeg"})), photos))
    wall = time.perf_counter() - t0
    # 422: a sample the scanner refuses (e.g. the blurred one) is an answer.
    report(f"uploads ({count} at once, {wall:.1f} s in all)", uploads, {200, 422})


def _saves(client: httpx.Client, count: int, clients: int) -> None:
    def save(i: int) -> tuple[float, int | str]:
        return timed(lambda: client.post(
            "/api/ledger", content=json.dumps({"sheet": sheet(i), "stake": "0.50"}),
            headers={"Content-Type": "application/json"}))

    with ThreadPoolExecutor(clients) as pool:
        saves = list(pool.map(save, range(count)))
    report(f"ledger saves ({clients} clients)", saves, {201})
    games = len(client.get("/api/ledger").json()["games"])
    print(f"ledger: {games} games stored (expected {count})")


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    port = free_port()
    base = f"http://{HOST}:{port}"
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "XDG_DATA_HOME": d, "PYTHONUNBUFFERED": "1"}
        server = subprocess.Popen(
            [sys.executable, "-m", "escalero", "serve", "--host", HOST,
             "--port", str(port), "--db", str(Path(d) / "ledger.sqlite3")],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            with httpx.Client(base_url=base, timeout=REQUEST_TIMEOUT) as client:
                if not _wait_for(server, client):
                    return 1
                print(f"server: escalero serve on {base}, pid {server.pid}, "
                      f"{os.cpu_count()} CPUs; idle RSS {peak_rss_mb(server.pid):.0f} MB")
                if args.uploads:
                    _uploads(client, args.uploads)
                if args.saves:
                    _saves(client, args.saves, args.save_clients)
                print(f"server peak RSS: {peak_rss_mb(server.pid):.0f} MB")
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
