"""`escalero serve`: the web app (Tafel, scan, print, ledger) for phones on the table."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import os
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
    p.add_argument("--pin", help="PIN every visitor must enter (default: $ESCALERO_PIN, else "
                   "none on 127.0.0.1 and a random one printed at start on any other "
                   "address); --pin shows in ps, $ESCALERO_PIN and --pin-file do not")
    p.add_argument("--pin-file", metavar="PATH",
                   help="read the PIN from this file (its first line)")
    p.add_argument("--proxy", metavar="ADDR", action="append", default=[],
                   help="address (or network, e.g. 10.0.0.0/8) of a reverse proxy in front of "
                   "the app: only its X-Forwarded-For is believed (repeatable; default none: "
                   "the connecting address counts, also for the PIN throttle)")
    p.set_defaults(func=run)


PIN_ENV = "ESCALERO_PIN"
MAX_PIN_FILE_BYTES = 1024


def chosen_pin(args: argparse.Namespace) -> tuple[str | None, str]:
    """The PIN given (--pin, else --pin-file, else $ESCALERO_PIN) and where it came from."""
    if args.pin is not None:
        return args.pin, "--pin"
    path = getattr(args, "pin_file", None)
    if path:
        try:
            with open(path, "rb") as f:
                raw = f.read(MAX_PIN_FILE_BYTES + 1)
        except OSError as err:
            raise UsageError(f"--pin-file {path}: cannot read it ({err.strerror or err}); "
                             "give a file holding the PIN") from None
        if len(raw) > MAX_PIN_FILE_BYTES:
            raise UsageError(f"--pin-file {path}: the file is too large for a PIN; give a "
                             "file holding only the PIN")
        lines = raw.decode("utf-8", "replace").splitlines()
        return (lines[0] if lines else ""), "--pin-file"
    env = os.environ.get(PIN_ENV)
    return (env, f"${PIN_ENV}") if env else (None, "")


def proxies(raw: list[str]) -> tuple[str, ...]:
    """--proxy addresses and networks, checked (a typo must not trust everyone)."""
    out = []
    for item in (part.strip() for value in raw for part in value.split(",")):
        try:
            out.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise UsageError(f"--proxy {item[:40]!r}: give the proxy's IP address or network, "
                             "e.g. 127.0.0.1 or 10.0.0.0/8") from None
    return tuple(out)


def settings(args: argparse.Namespace) -> tuple[WebConfig, bool]:
    """The app's config, and whether its PIN was generated here (so it must be printed)."""
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: give a port from 1 to 65535")
    pin, source = chosen_pin(args)
    if pin is not None and not (pin.strip() and pin.isprintable() and len(pin) <= 64):
        raise UsageError(f"{source}: give a PIN of {MIN_PIN_LEN}-64 printable characters")
    if pin is not None and len(pin.strip()) < MIN_PIN_LEN:
        # 3 digits are 1,000 guesses: too few even with the per-client throttle.
        raise UsageError(f"{source}: a PIN needs at least {MIN_PIN_LEN} characters; "
                         "a short one is guessed quickly")
    if pin is not None:
        pin = pin.strip()
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
    from escalero.web.app import create_app
    from escalero.web.server import serve

    config, generated = settings(args)
    trusted = proxies(getattr(args, "proxy", []) or [])
    check_port_free(args.host, args.port)
    app = create_app(config)
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"escalero serve: http://{shown}:{args.port}/  (ledger: {config.db_path})")
    if config.pin and generated:  # the only way to learn it; a chosen PIN is never shown
        print(f"escalero serve: PIN {config.pin} (generated; set {PIN_ENV} or --pin-file "
              "to choose one)")
    elif config.pin:
        print(f"escalero serve: PIN required (from {chosen_pin(args)[1]})")
    if trusted:
        print(f"escalero serve: X-Forwarded-For believed from {', '.join(trusted)} only")
    serve(app, args.host, args.port, trusted)
    return ExitCode.OK
