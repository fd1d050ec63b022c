"""`escalero settle`, `rules`, `dice`: output, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from escalero.cli import main as escalero_main

ROOT = Path(__file__).resolve().parents[1]
GOOD = {"game": "escalero", "sides": [
    {"name": "Anna", "columns": [{"aces": 30, "nines": 7}, {"nines": 1}, {"grande": 50}],
     "written_totals": [37, 2, None]},
    {"name": "Ben", "columns": [{"aces": 12}, {"poker": 40}, {"poker": 45}]}]}


def _write(tmp_path: Path, name: str, content: str) -> str:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return str(path)


def test_settle_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "g.json", json.dumps(GOOD))
    assert escalero_main(["settle", path, "--stake", "0.50"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Eskalero, 2 Spieler\n")
    assert "Kolonnensieger: I Anna, II Ben, III Anna" in out
    assert "Partiepunkte: Anna +3, Ben -3" in out
    # Money as German (de-AT) writes it, with CLDR's no-break space.
    assert "Geld (€\u00a00,50 pro Partiepunkt): Anna +€\u00a01,50, Ben -€\u00a01,50" in out
    assert "Zahlungen: Ben -> Anna €\u00a01,50" in out
    assert "Anna, Kolonne I, Neuner: 7 ist in Neuner nicht erlaubt (1-5)" in out
    assert ("Anna, Kolonne II, Summe: Summe geschrieben 2, die Einträge ergeben 1; "
            "es zählen die Einträge") in out
    assert "Anna, Kolonne I: nicht eingetragen: Zehner, Buben" in out
    for english in ("column", "not allowed", "Spalte", "Seite", "leer:"):
        assert english not in out, english


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "  Anna, column I, Nines: 7 is not allowed in Nines (1-5)"),
    ("es", "  Anna, columna I, Nueves: 7 no está permitido en Nueves (1-5)"),
])
def test_settle_table_in_other_languages(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         lang: str, line: str) -> None:
    path = _write(tmp_path, "g.json", json.dumps(GOOD))
    assert escalero_main(["settle", path, "--lang", lang]) == 0
    assert line in capsys.readouterr().out.splitlines()


def test_settle_json_english_unless_lang_given(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "g.json", json.dumps(GOOD))
    assert escalero_main(["settle", path, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["validation"][0]
    assert first["where"] == "Anna, column I, Nines"
    assert first["message"] == "7 is not allowed in Nines (1-5)"
    assert escalero_main(["settle", path, "--json", "--lang", "de"]) == 0
    first = json.loads(capsys.readouterr().out)["validation"][0]
    assert first["where"] == "Anna, Kolonne I, Neuner"
    assert first["message"] == "7 ist in Neuner nicht erlaubt (1-5)"


def test_settle_json_is_settle_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "g.json", json.dumps(GOOD))
    assert escalero_main(["settle", path, "--json", "--stake", "1", "--currency", "CHF"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settlement"]["points"] == [3, -3]
    assert out["settlement"]["winners"] == [0, 1, 0]
    assert out["money"]["transfers"] == [{"from": "Ben", "to": "Anna", "amount": "3.00"}]
    assert out["money"]["currency"] == "CHF"


def test_settle_several_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "g.json", json.dumps(GOOD))
    assert escalero_main(["settle", path, path, "--stake", "0.50"]) == 0
    assert "Gesamtstand: Anna +€\u00a03,00, Ben -€\u00a03,00" in capsys.readouterr().out
    assert escalero_main(["settle", path, path, "--stake", "0.50", "--lang", "en"]) == 0
    assert "Running balance: Anna +€3.00, Ben -€3.00" in capsys.readouterr().out
    assert escalero_main(["settle", path, path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["balance"]["players"] == {"Anna": 6, "Ben": -6}
    assert len(out["games"]) == 2


def test_settle_stdin() -> None:
    proc = subprocess.run([sys.executable, "-m", "escalero", "settle", "-", "--json"], cwd=ROOT,
                          input=json.dumps(GOOD), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["settlement"]["points"] == [3, -3]


BAD_FILES = {
    "not_json.json": "this is not json",
    "wrong_shape.json": "[1, 2, 3]",
    "unknown_row.json": json.dumps({"sides": [{"name": "A", "columns": [{"nine": 1}, {}, {}]}]}),
    "unknown_variant.json": json.dumps({"variant": ["strasse-99"], "sides": []}),
    "bad_value.json": json.dumps(
        {"sides": [{"name": "A", "columns": [{"nines": "drei"}, {}, {}]}]}),
    "columns.json": json.dumps({"sides": [{"name": "A", "columns": [{}]}]}),
    "empty.json": "",
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_exit_3_one_line(tmp_path: Path, name: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, name, BAD_FILES[name])
    assert escalero_main(["settle", path]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("escalero settle: error: ")
    assert name in err


@pytest.mark.parametrize(("args", "code"), [
    (["settle", "{dir}/missing.json"], 3),
    (["settle", "{dir}/not_json.json"], 3),
    (["settle", "{dir}/ok.json", "--stake", "0.001"], 2),
    (["rules", "--variant", "nope"], 3),
    (["dice", "9", "9", "9", "9", "7"], 2),
])
def test_subprocess_errors_have_no_traceback(tmp_path: Path, args: list[str], code: int) -> None:
    _write(tmp_path, "not_json.json", "{{{")
    _write(tmp_path, "ok.json", json.dumps(GOOD))
    argv = [a.replace("{dir}", str(tmp_path)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "escalero", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == code
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


def test_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert escalero_main(["rules", "--variant", "strasse-25,doppel-grande"]) == 0
    out = capsys.readouterr().out
    assert "Straße" in out and "25, serviert 30" in out and "Doppel-Grande" in out
    assert "Kolonnen: 3, Partiepunkte 1-2-4" in out and "Spieler oder Paare" in out
    assert "served" not in out and "Spalte" not in out
    assert escalero_main(["rules", "--game", "generala", "--lang", "en", "--json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert rules["rows"][-1] == {"id": "doble_generala", "label": "Double Generala", "face": None,
                                 "allowed": [100, 105], "served": [105], "requires": "generala",
                                 "describe": "100, served 105"}


def test_dice(capsys: pytest.CaptureFixture[str]) -> None:
    assert escalero_main(["dice", "9", "9", "K", "K", "K", "--served", "--json",
                              "--against", "A A A 10 10"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"]["full_house"] == 35 and out["rows"]["kings"] == 15
    assert out["start_poker"] == "full house"
    assert out["against"]["result"] == -1
    assert escalero_main(["dice", "1", "2", "3", "4", "5", "--game", "generala"]) == 0
    assert "Escalera" in capsys.readouterr().out


def test_dice_table_names_hands_in_german(capsys: pytest.CaptureFixture[str]) -> None:
    assert escalero_main(["dice", "9", "9", "9", "K", "A", "--against", "A A 10 10 D"]) == 0
    out = capsys.readouterr().out
    assert "Start-Poker: drei gleiche\n" in out
    assert "(zwei Paare): 9 9 9 K A gewinnt" in out
