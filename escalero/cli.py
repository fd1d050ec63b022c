"""The `escalero` command: one dispatcher, each package registers its subcommands.

Every subcommand module exposes `register(subparsers)`, which adds a parser whose
default `func(args) -> int` does the work. User mistakes raise EscaleroError
subclasses; they are printed as one line with their documented exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any

from escalero.scoring.errors import EscaleroError, ExitCode, OutputError, internal_error

# Modules that add subcommands, in the order `escalero --help` lists them.
SUBCOMMAND_MODULES = tuple(f"escalero.{name}.cli" for name in ("scoring", "sheets", "scan", "web"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="escalero",
        description="Escalero / Generala score sheets: print, scan, settle.",
        epilog="Exit codes: 0 ok, 2 usage, 3 bad input file, 4 unreadable photo, "
        "5 no sheet found, 6 sheet not readable safely, 7 optional tool missing, "
        "70 internal error, 74 cannot write output.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return ExitCode.USAGE
    stdout, sys.stdout = sys.stdout, _Output(sys.stdout)
    try:
        code = int(args.func(args) or ExitCode.OK)
        sys.stdout.flush()
        return code
    except OutputError as err:
        _quiet(stdout)
        print(f"escalero {args.command}: error: {err}", file=sys.stderr)
        return err.exit_code
    except EscaleroError as err:  # in the language asked for, where the catalog has the text
        message = err.text_in(args.lang) if getattr(args, "lang", None) else str(err)
        print(f"escalero {args.command}: error: {message}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("escalero: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # the reader had enough (`| head`)
        _quiet(stdout)
        return ExitCode.OK
    except Exception as err:  # noqa: BLE001 - the one catch-all: a bug, never a traceback
        print(f"escalero {args.command}: {internal_error(err)}", file=sys.stderr)
        return ExitCode.INTERNAL
    finally:
        sys.stdout = stdout


class _Output:
    """Standard output, whose failures (a full disk, /dev/full, a closed stdout: None)
    are an OutputError; a reader that stopped reading stays a BrokenPipeError."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return int(self._call("write", text))

    def flush(self) -> None:
        self._call("flush")

    def _call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except (OSError, AttributeError, ValueError) as err:
            why = f" ({err.strerror})" if isinstance(err, OSError) and err.strerror else ""
            raise OutputError(f"cannot write output{why}; check where standard output "
                              "goes (a full disk, a closed stream)") from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _quiet(stream: Any) -> None:
    """Point file descriptor 1 at /dev/null, so that what is still buffered for it is
    dropped at exit instead of failing once more (Python's own final flush)."""
    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, OSError, ValueError):
        return
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
