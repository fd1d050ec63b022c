"""Escalero (Piatnik Eskalero) and Generala: print score sheets, scan a photo, settle.

The installed package holds `escalero.sheets`, `escalero.scan`, `escalero.scoring`,
`escalero.samples` and `escalero.web`. In a source checkout those folders sit at the
repository root (the layout the project's design fixes), so the package also looks there.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

_CHECKOUT = Path(__file__).resolve().parent.parent
if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "scan" / "pipeline.py").is_file():
    __path__.append(str(_CHECKOUT))  # noqa: F821 (a package's module search path)
