"""scoring.errors: one error model, its exit codes and HTTP statuses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from escalero.scan.pipeline import ScanOptionError
from escalero.scoring.errors import (
    EscaleroError,
    ExitCode,
    InputFileError,
    LayoutUnknownError,
    OutputError,
    PhotoError,
    SheetNotFoundError,
    ToolMissingError,
    UnknownRulesError,
    UnreadableSheetError,
    UsageError,
)
from escalero.sheets.layout import SheetOptionError
from escalero.web.app import BodyTooLarge, NotJson
from escalero.web.guests import UnnamedSidesError
from escalero.web.ledger import DuplicateSerialError, LedgerError
from escalero.web.scanning import PhotoTooLarge
from escalero.web.uploads import NotAnImage, UploadTooLarge


def test_exit_codes_are_the_documented_ones() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Exit codes", 1)[1].split("\n\n", 2)[1]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.M)}
    assert documented == {c.value for c in ExitCode} - {ExitCode.INTERRUPTED}
    assert [int(c) for c in ExitCode] == [0, 2, 3, 4, 5, 6, 7, 70, 74, 130]


@pytest.mark.parametrize(("cls", "exit_code", "http_status"), [
    (EscaleroError, ExitCode.INTERNAL, 500),
    (UsageError, ExitCode.USAGE, 400),
    (SheetOptionError, ExitCode.USAGE, 400),
    (ScanOptionError, ExitCode.USAGE, 400),
    (UnnamedSidesError, ExitCode.USAGE, 422),
    (InputFileError, ExitCode.INPUT_FILE, 400),
    (UnknownRulesError, ExitCode.INPUT_FILE, 400),
    (BodyTooLarge, ExitCode.INPUT_FILE, 413),
    (NotJson, ExitCode.INPUT_FILE, 415),
    (LedgerError, ExitCode.INPUT_FILE, 503),
    (DuplicateSerialError, ExitCode.INPUT_FILE, 409),
    (PhotoError, ExitCode.PHOTO, 422),
    (PhotoTooLarge, ExitCode.PHOTO, 413),
    (UploadTooLarge, ExitCode.PHOTO, 413),
    (NotAnImage, ExitCode.PHOTO, 415),
    (SheetNotFoundError, ExitCode.SHEET_NOT_FOUND, 422),
    (LayoutUnknownError, ExitCode.SHEET_NOT_FOUND, 422),
    (UnreadableSheetError, ExitCode.UNREADABLE_SHEET, 422),
    (ToolMissingError, ExitCode.TOOL_MISSING, 503),
    (OutputError, ExitCode.OUTPUT, 500),
])
def test_each_error_class_names_its_exit_code_and_http_status(cls, exit_code, http_status):
    assert cls.exit_code is exit_code and cls.http_status == http_status


def test_details_add_fields_to_the_api_body_only_where_a_page_needs_them() -> None:
    assert UsageError("x").details() == {}
    assert DuplicateSerialError("K7Q2-001", ["3.1."]).details() == {
        "duplicate": True, "serial": "K7Q2-001", "earlier": ["3.1."]}
    assert UnnamedSidesError(["Spieler 1"]).details() == {"unnamed": ["Spieler 1"]}
