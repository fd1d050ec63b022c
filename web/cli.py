"""`escalero serve`: the web app (Tafel, scan, print, ledger) for phones on the table."""

from __future__ import annotations

import argparse
import errno
import socket

from escalero.scoring.errors import ExitCode, UsageError
from escalero.web.config import WebConfig, is_loopback
from escalero.web.security import MIN_PIN_LEN, generate_pin


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve", help="run the web app (keep score, scan photos, print, ledger)",
        description="Run the Escalero web app. Open the printed address on a phone in "
        "the same network (with --host 0.0.0.0) or on this computer.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only; "
                   "0.0.0.0 lets phones in the network in, with a PIN)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", metavar="PATH",
                   help="ledger file (default $XDG_DATA_HOME/escalero/ledger.sqlite3)")
    p.add_argument("--pin", help="PIN every visitor must enter (default: none on 127.0.0.1, "
                   "a random one printed at start on any other address)")
    p.set_defaults(func=run)


def settings(args: argparse.Namespace) -> tuple[WebConfig, bool]:
    """The app's config, and whether its PIN was generated here (so it must be printed)."""
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: give a port from 1 to 65535")
    pin = args.pin
    if pin is not None and not (pin.strip() and pin.isprintable() and len(pin) <= 64):
        raise UsageError(f"--pin: give a PIN of {MIN_PIN_LEN}-64 printable characters")
    if pin is not None and len(pin.strip()) < MIN_PIN_LEN:
        # 3 digits are 1,000 guesses: too few even with the per-client throttle.
        raise UsageError(f"--pin: a PIN needs at least {MIN_PIN_LEN} characters; "
                         "a short one is guessed quickly")
    generated = pin is None and not is_loopback(args.host)
    if generated:
        pin = generate_pin()
    return WebConfig.default(args.db, pin), generated


def check_port_free(host: str, port: int) -> None:
    """UsageError (exit 2) when the address cannot be listened on, before anything starts:
    uvicorn would log a traceback-like message and exit with a code of its own."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host.strip("[]"), port))
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise UsageError(f"--port {port}: already in use on {host}; choose another "
                             "port or stop the other server") from None
        raise UsageError(f"--host {host} --port {port}: cannot listen there "
                         f"({err.strerror or err}); check the address") from None


def run(args: argparse.Namespace) -> int:
    import uvicorn
    from escalero.web.app import create_app

    config, generated = settings(args)
    check_port_free(args.host, args.port)
    app = create_app(config)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"escalero serve: http://{shown}:{args.port}/  (ledger: {config.db_path})")
    if config.pin:
        note = " (generated; give --pin to choose one)" if generated else ""
        print(f"escalero serve: PIN {config.pin}{note}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return ExitCode.OK
