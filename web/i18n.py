"""Words the web pages show, in German (default) and English.

Row labels come from scoring.rulesets; only the page's own words live here.
"""

from __future__ import annotations

LANGS = ("de", "en")
DEFAULT_LANG = "de"

_TEXT: dict[str, tuple[str, str]] = {
    # key: (German, English)
    "title": ("Escalero", "Escalero"),
    "nav_home": ("Start", "Home"),
    "nav_tafel": ("Tafel", "Score"),
    "nav_scan": ("Foto", "Photo"),
    "nav_print": ("Drucken", "Print"),
    "nav_ledger": ("Kassa", "Ledger"),
    "home_tafel": ("Tafel: live mitschreiben", "Keep score live"),
    "home_tafel_sub": ("Spiel wählen, Spieler eintragen, während des Spiels schreiben",
                       "Choose the game and players, type entries as you play"),
    "home_scan": ("Foto einer Spieltabelle auswerten", "Read a photo of a score sheet"),
    "home_scan_sub": ("Fotografieren, unsichere Felder prüfen, abrechnen",
                      "Take a photo, check unsure cells, settle"),
    "home_print": ("Spieltabellen drucken", "Print score sheets"),
    "home_print_sub": ("PDF mit Markierungen zum späteren Einlesen",
                       "PDF with markers for scanning later"),
    "home_ledger": ("Kassa und Spielliste", "Ledger and games"),
    "home_ledger_sub": ("Salden über Spiele und Abende, CSV-Export",
                        "Balances across games and evenings, CSV export"),
    "game": ("Spiel", "Game"),
    "variants": ("Hausregeln", "House rules"),
    "players": ("Spieler", "Players"),
    "players_hint": ("Ein Name pro Zeile; ein Paar als „Anna & Ben“",
                     "One name a line; a pair as “Anna & Ben”"),
    "start": ("Los geht's", "Start"),
    "new_game": ("Neues Spiel", "New game"),
    "stake": ("Einsatz pro Punkt", "Stake per point"),
    "currency": ("Währung", "Currency"),
    "total": ("Summe", "Total"),
    "written_total": ("Summe (geschr.)", "Total (written)"),
    "points": ("Partiepunkte", "Game points"),
    "points_short": ("Partiepunkte", "Game points"),
    "amount": ("Betrag", "Amount"),
    "transfers": ("Wer zahlt wem", "Who pays whom"),
    "pays": ("zahlt", "pays"),
    "problems": ("Zu prüfen", "To check"),
    "no_problems": ("Alles in Ordnung.", "Everything is fine."),
    "struck_hint": ("0 oder x = gestrichen", "0 or x = struck"),
    "not_allowed": ("nicht erlaubt", "not allowed"),
    "allowed": ("erlaubt", "allowed"),
    "save": ("In die Kassa", "Save to ledger"),
    "saved": ("Gespeichert.", "Saved."),
    "confirm_duplicate": ("Diese Tabelle wurde schon abgerechnet. Trotzdem noch einmal zählen?",
                          "This sheet was settled before. Count it again?"),
    "photo": ("Foto", "Photo"),
    "take_photo": ("Foto aufnehmen oder wählen", "Take or choose a photo"),
    "reading": ("Lese die Tabelle …", "Reading the sheet …"),
    "scan_help": ("Tabelle flach hinlegen, alle vier Ecken-Markierungen im Bild.",
                  "Lay the sheet flat, all four corner markers in the picture."),
    "flagged": ("unsicher: bitte prüfen", "unsure: please check"),
    "flagged_count": ("unsichere Felder zu prüfen", "unsure cells to check"),
    "read_as": ("gelesen", "read"),
    "column": ("Kolonne", "Column"),
    "winner": ("Sieger", "Winner"),
    "print_title": ("Spieltabellen drucken", "Print score sheets"),
    "download_pdf": ("PDF herunterladen", "Download PDF"),
    "ledger_title": ("Kassa", "Ledger"),
    "balances": ("Salden", "Balances"),
    "all_games": ("alle Spiele", "all games"),
    "evening": ("Abend", "Evening"),
    "games": ("Spiele", "Games"),
    "date": ("Datum", "Date"),
    "serial": ("Nr.", "Serial"),
    "player": ("Spieler", "Player"),
    "export_csv": ("CSV exportieren", "Export CSV"),
    "no_games": ("Noch keine Spiele gespeichert.", "No games saved yet."),
    "pin_title": ("PIN eingeben", "Enter PIN"),
    "pin_hint": ("Die PIN steht im Terminal, in dem der Server läuft.",
                 "The PIN is shown in the terminal where the server runs."),
    "pin_wrong": ("Falsche PIN.", "Wrong PIN."),
    "pin_locked": ("Zu viele Versuche; bitte eine Minute warten.",
                   "Too many tries; please wait a minute."),
    "ok": ("OK", "OK"),
    "error": ("Fehler", "Error"),
    "offline": ("Server nicht erreichbar.", "Server not reachable."),
    "side": ("Partei", "Side"),
    "tafel_title": ("Tafel", "Score sheet"),
    "clear": ("Leeren", "Clear"),
    "confirm_clear": ("Alle Einträge löschen?", "Delete all entries?"),
    "incomplete": ("Felder noch offen", "cells still open"),
    "variant_strasse-25": ("Straße 25 (serviert 30)", "Straight 25 (served 30)"),
    "variant_doppel-grande": ("Doppel-Grande (100)", "Double Grande (100)"),
    "variant_one-column": ("Nur eine Kolonne", "One column only"),
    "variant_weights-123": ("Kolonnen zählen 1-2-3", "Columns count 1-2-3"),
    "game_escalero": ("Escalero", "Escalero"),
    "game_generala": ("Generala", "Generala"),
    "pairs": ("Paare (je zwei Namen pro Partei)", "Pairs (two names per side)"),
    "sides": ("Parteien", "Sides"),
    "pages": ("Anzahl Blätter", "Number of sheets"),
    "paper": ("Papier", "Paper"),
    "first_serial": ("Serien-Kennung", "Serial base"),
    "serial_hint": ("1-8 Buchstaben/Ziffern; leer = zufällig; Blätter werden K7Q2-001, -002 …",
                    "1-8 letters/digits; empty = random; sheets become K7Q2-001, -002 …"),
    "names": ("Namen", "Names"),
    "two_up": ("Zwei Tabellen pro Blatt", "Two sheets per page"),
    "back": ("Rückseite", "Back"),
    "back_none": ("leer", "blank"),
    "back_start-poker": ("Start-Poker-Strichliste", "Start-Poker tally"),
    "language": ("Sprache", "Language"),
    "names_print_hint": ("optional: Namen werden vorgedruckt; ein Name pro Zeile; "
                         "Paare werden der Reihe nach gebildet",
                         "optional: names are printed; one name a line; "
                         "pairs are formed in order"),
    "saved_games": ("Gespeicherte Spiele", "Saved games"),
    "evenings": ("Abende", "Evenings"),
    "scan_again": ("Anderes Foto", "Another photo"),
    "next": ("Weiter", "Next"),
    "delete": ("Löschen", "Delete"),
    "confirm_delete": ("Dieses Spiel aus der Kassa löschen?", "Delete this game from the ledger?"),
    "names_hint": ("Namen oben antippen, um sie zu ändern (ein Paar als „Anna & Ben“).",
                   "Tap the names at the top to change them (a pair as “Anna & Ben”)."),
    "layout": ("Layout (nur falls der QR-Code unlesbar ist)",
               "Layout (only if the QR code is unreadable)"),
    "layout_hint": ("Sonst liest die App alles aus dem QR-Code der Tabelle.",
                    "Otherwise the app reads everything from the sheet's QR code."),
    "check_flags": ("Prüfen", "Check"),
    "flag_hint": ("gelb = unsicher gelesen", "yellow = read with doubt"),
    "payout_sure": ("Auszahlung sicher", "Payout certain"),
    "payout_hangs": ("Auszahlung hängt an {n} Feld(ern)", "Payout depends on {n} cell(s)"),
    "payout_unsure": ("Auszahlung noch nicht sicher", "Payout not certain yet"),
    "payout_unfinished": ("Blatt nicht fertig: Auszahlung vorläufig",
                          "Sheet not finished: payout provisional"),
    "payout_rest": ("{n} weitere unsichere Felder ändern die Auszahlung nicht; prüfen ist "
                    "freiwillig.", "{n} other unsure cells cannot change the payout; checking "
                    "them is optional."),
    "confirm_unsure_save": ("Die Auszahlung ist noch nicht sicher. Trotzdem in die Kassa?",
                            "The payout is not certain yet. Save it to the ledger anyway?"),
}


def translate(key: str, lang: str) -> str:
    de, en = _TEXT[key]
    return en if lang == "en" else de


def catalog(lang: str) -> dict[str, str]:
    """All strings for one language (handed to the page's JavaScript)."""
    return {k: translate(k, lang) for k in _TEXT}


def pick_lang(requested: str | None) -> str:
    return requested if requested in LANGS else DEFAULT_LANG
