"""Time `escalero sheet`: layouts, a 100-page block, and the size of the PDF.

    .venv/bin/python -m benchmarks.sheets [--pages 100]
"""

from __future__ import annotations

import argparse
import time

from escalero.sheets.block import make_serials
from escalero.sheets.layout import LayoutSpec, all_specs, build_layout
from escalero.sheets.render import SheetText, render_pdf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    specs = all_specs()
    t_layouts = time.perf_counter() - t0
    print(f"layouts: {len(specs)} printable specs built in {t_layouts * 1000:.0f} ms")

    cases = [
        ("escalero 2 players A4", LayoutSpec(sides=2), {}),
        ("escalero 6 players A4", LayoutSpec(sides=6), {}),
        ("escalero 3 pairs + backs", LayoutSpec(sides=3, pairs=True),
         {"back": "start-poker", "players": ("A", "B", "C", "D", "E", "F")}),
        ("generala 8 players", LayoutSpec(game="generala", sides=8), {}),
    ]
    for name, spec, kw in cases:
        build_layout.cache_clear()  # include building the layout in the time
        t0 = time.perf_counter()
        pdf = render_pdf(build_layout(spec), make_serials(args.pages), SheetText(), **kw)
        dt = time.perf_counter() - t0
        print(f"{name}: {args.pages} sheets in {dt * 1000:.0f} ms "
              f"({dt / args.pages * 1000:.2f} ms/sheet), {len(pdf) / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
