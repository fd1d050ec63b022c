"""Printable score sheets (Spieltabelle) for Escalero and Generala.

- `sheets.layout`: the one geometry model (`LayoutSpec`, `build_layout`, `encode_code`,
  `decode_code`, `layout_from_code`); millimetres, origin top-left, y down.
- `sheets.render`: reportlab PDF of a layout (`render_pdf`, `write_pdf`).
- `sheets.texts`, `sheets.back`: printed words (de/en/es) and the Start-Poker back page.
- `sheets.cli`: `escalero sheet ... -o block.pdf [--layout-json layout.json]`.
"""
