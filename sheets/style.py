"""Colours and line widths shared by the sheet and its back page."""

from reportlab.lib.colors import Color

GRID_RED = Color(235 / 255, 120 / 255, 120 / 255)  # dropout colour: removable by hue
INK = Color(0.12, 0.12, 0.22)  # labels: dark, and never inside a writable box
MUTED = Color(0.38, 0.38, 0.45)
BLACK = Color(0, 0, 0)
GRID_PT = 0.4
SIDE_PT = 0.9  # outline of each side's block (still dropout red, still thin)
