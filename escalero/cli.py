"""The `escalero` command: one dispatcher, each package registers its subcommands.

Every subcommand module exposes `register(subparsers)`, which adds a parser whose
default `func(args) -> int` does the work. User mistakes raise EscaleroError
subclasses; they are printed as one line with their documented exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from escalero.i18n import LANGUAGES, N_, os_reason, translator
from escalero.scoring.errors import EscaleroError, ExitCode, OutputError, internal_error

# Modules that add subcommands, in the order `escalero --help` lists them.
SUBCOMMAND_MODULES = tuple(f"escalero.{name}.cli" for name in ("scoring", "sheets", "scan", "web"))


# argparse's own texts that reach a user who typed a bad option, as its catalog names them
# (Python 3.11): marked here so that the catalog holds their German and Spanish.
ARGPARSE_TEXTS = (
    N_("usage: "), N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("expected one argument"),
    N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"), N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
)
_ARGPARSE_ENGLISH = (argparse._, argparse.ngettext)  # type: ignore[attr-defined]


def chosen_language(argv: Sequence[str]) -> str | None:
    """The language `--lang` names on the command line (the last one, as argparse reads
    it; a unique prefix such as --lan counts too), None where none valid is given: the
    errors of a command line are said in it, argparse's own included."""
    lang = None
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            break
        name, eq, value = token.partition("=")
        if len(name) >= 4 and "--lang".startswith(name):
            value = value if eq else next(tokens, "")
            lang = value if value in LANGUAGES else lang
    return lang


@contextlib.contextmanager
def argparse_in(lang: str | None) -> Iterator[None]:
    """argparse's messages (a bad option value, a missing argument) from the catalog in
    `lang` while the command line is parsed; as they are where `lang` is None."""
    if lang is None:
        yield
        return
    t = translator(lang)
    setattr(argparse, "_", t.gettext)  # noqa: B010 - argparse looks both up at each call
    setattr(argparse, "ngettext", t.ngettext)  # noqa: B010
    try:
        yield
    finally:
        argparse._, argparse.ngettext = _ARGPARSE_ENGLISH  # type: ignore[attr-defined]


class Parser(argparse.ArgumentParser):
    """The parser of `escalero` and its subcommands: its help stays in English, as the
    options' own help texts are, also while its errors speak --lang."""

    def print_help(self, file: Any = None) -> None:
        saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
        argparse._, argparse.ngettext = _ARGPARSE_ENGLISH  # type: ignore[attr-defined]
        try:
            super().print_help(file)
        finally:
            argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


def error_line(command: str, message: str, lang: str | None) -> str:
    """"escalero settle: error: ..." (its word for error in `lang`), as argparse says it."""
    frame = translator(lang).gettext("%(prog)s: error: %(message)s\n") if lang else \
        "%(prog)s: error: %(message)s\n"
    return (frame % {"prog": f"escalero {command}", "message": message}).rstrip("\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
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
    lang = chosen_language(sys.argv[1:] if argv is None else argv)
    with argparse_in(lang):
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
        print(error_line(args.command, err.text_in(lang or "en"), lang), file=sys.stderr)
        return err.exit_code
    except EscaleroError as err:  # in the language asked for, where the catalog has the text
        print(error_line(args.command, err.text_in(lang or "en"), lang), file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print(translator(lang or "en").gettext(N_("escalero: interrupted")), file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # the reader had enough (`| head`)
        _quiet(stdout)
        return ExitCode.OK
    except Exception as err:  # noqa: BLE001 - the one catch-all: a bug, never a traceback
        print(f"escalero {args.command}: {internal_error(err, lang or 'en')}", file=sys.stderr)
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
            if isinstance(err, OSError) and err.strerror:
                raise OutputError.worded(N_("cannot write output ({why}); check where standard "
                                            "output goes (a full disk, a closed stream)"),
                                         why=os_reason(err)) from None
            raise OutputError.worded(N_("cannot write output; check where standard output "
                                        "goes (a full disk, a closed stream)")) from None

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
