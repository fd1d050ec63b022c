"""The `escalero` command: one dispatcher, each package registers its subcommands.

Every subcommand module exposes `register(subparsers)`, which adds a parser whose
default `func(args) -> int` does the work. User mistakes raise EscaleroError
subclasses; they are printed as one line with their documented exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from escalero.scoring.errors import EscaleroError, ExitCode, internal_error

# Modules that add subcommands; a module that is missing (not built yet) is skipped.
SUBCOMMAND_MODULES = ("escalero.scoring.cli", "escalero.sheets.cli", "escalero.scan.cli", "escalero.web.cli")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="escalero",
        description="Escalero / Generala score sheets: print, scan, settle.",
        epilog="Exit codes: 0 ok, 2 usage, 3 bad input file, 4 unreadable photo, "
        "5 no sheet found, 6 sheet not readable safely, 7 optional tool missing, "
        "70 internal error.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name == name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return ExitCode.USAGE
    try:
        return int(args.func(args) or ExitCode.OK)
    except EscaleroError as err:
        print(f"escalero {args.command}: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("escalero: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as err:  # noqa: BLE001 - the one catch-all: a bug, never a traceback
        print(f"escalero {args.command}: {internal_error(err)}", file=sys.stderr)
        return ExitCode.INTERNAL


if __name__ == "__main__":
    sys.exit(main())
