"""`escalero sheet`: print a block of score sheets as PDF.

Players and sides: without --pairs every player is a side. With --pairs, --players
counts players and --names lists them; they are paired in order (Anna+Bert, Cora+Dani,
...). An odd count leaves the last side with one player (who plays for two).
--pages counts printed pages; with --two-up each page holds two A5 sheets, every
sheet with its own serial.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from escalero.scoring.cli import add_house_options, house_override
from escalero.scoring.errors import ExitCode, UsageError
from escalero.scoring.house import default_for
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES
from escalero.sheets.block import make_serials, plan_block
from escalero.sheets.layout import PAPERS, SheetOptionError, build_layout
from escalero.sheets.render import BACKS, SheetText, page_geometry, render_pdf

from escalero.i18n import N_, os_reason, translator

MAX_PAGES = 1000


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sheet",
        help="print a block of score sheets (PDF)",
        description="Print Escalero or Generala score sheets with fiducials and a QR code "
        "that `escalero scan` reads.",
    )
    p.add_argument("--game", choices=GAMES, default="escalero")
    who = p.add_argument_group("players")
    who.add_argument("--players", type=int, help="number of players (default 2, pairs 4)")
    who.add_argument("--names", help='comma-separated names printed in the name boxes, '
                     'e.g. "Anna,Bert" (sets the player count)')
    who.add_argument("--pairs", action="store_true",
                     help="Escalero in pairs: two players per side, paired in order "
                     "(odd count: the last side is one player)")
    p.add_argument("--variant", action="append", default=[], metavar="V",
                   help=f"house variant (repeatable): {', '.join(ESCALERO_VARIANTS)}")
    p.add_argument("--paper", choices=tuple(PAPERS), default="a4")
    p.add_argument("--pages", type=int, default=1, help="pages in the block (default 1)")
    p.add_argument("--two-up", action="store_true",
                   help="two A5 sheets per A4 page with a cut line (implies --paper a5)")
    p.add_argument("--lang", choices=LANGUAGES, default="de")
    p.add_argument("--back", choices=BACKS, help="print a back page behind every sheet")
    p.add_argument("--serial", help="serial base (letters/digits) instead of a random one")
    p.add_argument("-o", "--output", required=True, type=Path, help="PDF file to write")
    p.add_argument("--layout-json", type=Path, help="also write the layout as JSON")
    add_house_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.pages <= MAX_PAGES:
        raise SheetOptionError.worded(N_("--pages must be 1-{most}, not {pages}"), most=MAX_PAGES,
                                      pages=args.pages)
    if args.back and args.game != "escalero":
        raise SheetOptionError.worded(N_("--back start-poker is Escalero's side game; drop "
                                         "--back"))
    paper = args.paper
    if args.two_up:
        if paper not in ("a4", "a5"):
            raise SheetOptionError.worded(N_("--two-up prints A5 sheets on A4 paper; drop "
                                             "--paper"))
        paper = "a5"
    variants = tuple(v.strip() for arg in args.variant for v in arg.split(",") if v.strip())
    block = plan_block(args.game, args.players, args.names, args.pairs, variants, paper)
    layout = build_layout(block.spec)
    page_w, page_h, offsets = page_geometry(layout, args.two_up)
    serials = make_serials(args.pages * len(offsets), args.serial)
    override = house_override(args)
    house = None
    if override is not None:
        if args.game != "escalero":
            raise UsageError.worded(N_("house rules apply to Escalero only; drop --house-rules "
                                       "and its flags"))
        rules = layout.ruleset
        house = override.apply(default_for(rules), rules.columns)

    pdf = render_pdf(layout, serials, SheetText(args.lang, block.names, house),
                     two_up=args.two_up, back=args.back, players=block.players)
    _write(args.output, pdf)
    if args.layout_json:
        data = layout.to_json()
        if args.two_up:
            data["two_up"] = {
                "note": "this layout describes the first sheet on each page; the second "
                        "is the same layout at offset_mm",
                "print_page": {"width_mm": page_w, "height_mm": page_h},
                "offset_mm": list(offsets[1]),
            }
        _write(args.layout_json, (json.dumps(data, indent=1) + "\n").encode())
    print(_wrote(args, layout.spec.paper, layout.orientation, serials))
    return ExitCode.OK


def _wrote(args: argparse.Namespace, paper: str, orientation: str, serials: list[str]) -> str:
    """What was written, in the sheet's language: "block.pdf geschrieben: 3 Seiten, ..."."""
    t = translator(args.lang)
    pages = args.pages * (2 if args.back else 1)
    shape = t.gettext("portrait") if orientation == "portrait" else t.gettext("landscape")
    return t.gettext("wrote {output}: {pages}, {sheets} {paper} {orientation}, serials "
                     "{first}..{last}").format(
        output=args.output, pages=t.ngettext("{n} page", "{n} pages", pages).format(n=pages),
        sheets=t.ngettext("{n} sheet", "{n} sheets", len(serials)).format(n=len(serials)),
        paper=paper.upper(), orientation=shape, first=serials[0], last=serials[-1])


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as err:
        raise SheetOptionError.worded(N_("cannot write {path}: {why}; choose another -o path"),
                                      path=path, why=os_reason(err)) from None
