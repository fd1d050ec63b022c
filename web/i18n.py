"""Every word the web app shows, by the key its templates and page scripts name it with:
page texts and the server's messages (errors shown on a page).

The words come from escalero.i18n's catalog (German by default, English, Spanish). Row
labels and validation messages come from scoring; only the app's own words are named here.
A text may hold {placeholders}.
"""

from __future__ import annotations

import math
from functools import cache
from gettext import NullTranslations
from typing import Final

from escalero.i18n import LANGUAGES, N_, pick_language, translator

LANGS = LANGUAGES


# The app's words by key; their translations are the catalog's.
_TEXT: Final[dict[str, str]] = {
    "title": N_("Escalero"),
    "nav_home": N_("Home"),
    "nav_tafel": N_("Score"),
    "nav_scan": N_("Photo"),
    "nav_print": N_("Print"),
    "nav_ledger": N_("Ledger"),
    "home_tafel": N_("Keep score live"),
    "home_tafel_sub": N_("Choose the game and players, type entries as you play"),
    "home_scan": N_("Read a photo of a score sheet"),
    "home_scan_sub": N_("Take a photo, check unsure cells, settle"),
    "home_print": N_("Print score sheets"),
    "home_print_sub": N_("PDF with markers for scanning later"),
    "home_ledger": N_("Ledger and games"),
    "home_ledger_sub": N_("Balances across games and evenings, CSV export"),
    "game": N_("Game"),
    "variants": N_("House rules"),
    "players": N_("Players"),
    "players_hint": N_("One name a line; a pair as “Anna & Ben”"),
    "start": N_("Start"),
    "new_game": N_("New game"),
    "stake": N_("Stake per point"),
    "currency": N_("Currency"),
    "total": N_("Total"),
    "points": N_("Game points"),
    "amount": N_("Amount"),
    "transfers": N_("Who pays whom"),
    "pays": N_("pays"),
    "problems": N_("To check"),
    "notes": N_("Notes (nothing to do)"),
    "no_problems": N_("Everything is fine."),
    "struck_hint": N_("0 or x = struck"),
    "not_allowed": N_("not allowed"),
    "allowed": N_("allowed"),
    "save": N_("Save to ledger"),
    "saved": N_("Saved."),
    "confirm_duplicate": N_("This sheet was settled before. Count it again?"),
    "photo": N_("Photo"),
    "take_photo": N_("Take or choose a photo"),
    "reading": N_("Reading the sheet …"),
    "scan_help": N_("Lay the sheet flat, all four corner markers in the picture."),
    "flagged": N_("unsure: please check"),
    "flagged_count": N_("unsure cells to check"),
    "read_as": N_("read"),
    "column": N_("Column"),
    "winner": N_("Winner"),
    "print_title": N_("Print score sheets"),
    "download_pdf": N_("Download PDF"),
    "ledger_title": N_("Ledger"),
    "balances": N_("Balances"),
    "all_games": N_("all games"),
    "evening": N_("Evening"),
    "games": N_("Games"),
    "date": N_("Date"),
    "serial": N_("Serial"),
    "player": N_("Player"),
    "export_csv": N_("Export CSV"),
    "no_games": N_("No games saved yet."),
    "pin_title": N_("Enter PIN"),
    "pin_hint": N_("The PIN is shown in the terminal where the server runs."),
    "pin_wrong": N_("Wrong PIN."),
    "pin_locked": N_("Too many tries: please wait {wait}, then enter the PIN again."),
    "pin_wrong_wait": N_("Wrong PIN. The next try is possible in {wait}."),
    "err_cross_site": N_("Requests from other web sites are refused; use the app's own pages."),
    "err_unknown_host": N_("Unknown host name; open the app via 127.0.0.1 or localhost."),
    "ok": N_("OK"),
    "error": N_("Error"),
    "offline": N_("Server not reachable."),
    "side": N_("Side"),
    "clear": N_("Clear"),
    "confirm_clear": N_("Delete all entries?"),
    "variant_strasse-25": N_("Straight 25 (served 30)"),
    "variant_doppel-grande": N_("Double Grande (100)"),
    "variant_one-column": N_("One column only"),
    "variant_weights-123": N_("Columns count 1-2-3"),
    "game_escalero": N_("Escalero"),
    "game_generala": N_("Generala"),
    "pairs": N_("Pairs (two names per side)"),
    "sides": N_("Sides"),
    "pages": N_("Number of sheets"),
    "paper": N_("Paper"),
    "first_serial": N_("Serial base"),
    "serial_hint": N_("1-8 letters/digits; empty = random; sheets become K7Q2-001, -002 …"),
    "names": N_("Names"),
    "two_up": N_("Two sheets per page"),
    "back": N_("Back"),
    "back_none": N_("blank"),
    "back_start-poker": N_("Start-Poker tally"),
    "language": N_("Language"),
    "names_print_hint": N_("optional: names are printed; one name a line; pairs are formed "
                           "in order"),
    "saved_games": N_("Saved games"),
    "evenings": N_("Evenings"),
    "scan_again": N_("Another photo"),
    "next": N_("Next"),
    "delete": N_("Delete"),
    "deleted": N_("Game deleted."),
    "undo": N_("Undo"),
    "err_undo_gone": N_("This deletion can no longer be undone (the server restarted, or "
                        "it was undone already)."),
    "evening_pays": N_("Who pays whom this evening"),
    "evening_even": N_("Nobody owes anybody anything this evening."),
    "saved_again": N_("save no. {n} of this sheet"),
    "confirm_delete": N_("Delete this game from the ledger?"),
    "names_hint": N_("Tap the names at the top to change them (a pair as “Anna & Ben”)."),
    "layout": N_("Layout (only if the QR code is unreadable)"),
    "layout_hint": N_("Otherwise the app reads everything from the sheet's QR code."),
    "check_flags": N_("Check"),
    "house_title": N_("Settlement terms"),
    "house_preset": N_("Preset"),
    "house_piatnik": N_("Piatnik (default)"),
    "house_wirtshaus": N_("Pub (as the Escalero app)"),
    "house_custom": N_("custom"),
    "house_points": N_("Points per column"),
    "house_bonus": N_("All three: extra from each opponent"),
    "house_split": N_("Tie at the top: split (the others pay)"),
    "house_hint": N_("Kept for this table (the same players)."),
    "flag_hint": N_("yellow = read with doubt"),
    "payout_sure": N_("Payout certain"),
    "payout_unsure": N_("Payout not certain yet"),
    "payout_unfinished": N_("Sheet not finished: payout provisional"),
    "payout_more": N_("Now {pct} sure, certain from {need}. Every answer is counted again: "
                      "more cells may be asked."),
    "review_now": N_("Payout {pct} sure (certain from {need})"),
    "confirm_unsure_save": N_("The payout is not certain yet. Save it to the ledger anyway?"),
    "confirm_saved_again": N_("Already saved — save it again?"),
    "err_duplicate_serial": N_("Sheet {serial} was already settled ({earlier})."),
    "err_duplicate_game": N_("This game is already in the ledger ({earlier})."),
    "guest": N_("Guest"),
    "name_from_sheet": N_("Name on the sheet"),
    "names_needed": N_("Type the names: the photo does not read the name boxes."),
    "confirm_guests": N_("Still without a name: {names}. Save them as guests? A guest "
                         "counts in this game only."),
    "err_unnamed": N_("{names} has no name yet: type the names, or save as guests."),
    "review_illegal": N_("unreadable / not allowed"),
    "review_doubt": N_("hardly readable: perhaps a value this row does not allow"),
    "review_type": N_("What is written? (x = struck)"),
    "review_illegal_hint": N_("A value the row does not allow is marked red and does not "
                              "count."),
    "handwriting": N_("Handwriting in the cell"),
    "provisional": N_("provisional"),
    "stake_none": N_("no stake"),
    "points_bar": N_("Points"),
    "shrinking": N_("Shrinking the photo …"),
    "uploading": N_("Sending the photo: {p} %"),
    "evening_rule": N_("Games after midnight count to the evening before, up to 06:00."),
    "err_no_photo": N_("No photo received; choose or take a photo of the sheet."),
    "err_not_photo": N_("This file is not a photo; upload a JPEG, PNG, HEIC or WebP image."),
    "err_too_large": N_("The photo is larger than {mb} MB; take it at a lower resolution "
                        "or send a JPEG."),
    "err_photo_damaged": N_("The photo is damaged or arrived incomplete: send it again or "
                            "take a new one."),
    "err_no_sheet": N_("No score sheet found: hold the phone so all four corner marks are "
                       "in the picture."),
    "err_two_sheets": N_("Two score sheets in the picture: photograph one sheet at a time "
                         "(cover or fold away the other)."),
    "err_too_small": N_("Sheet too small in the photo to read safely: move closer so the "
                        "sheet fills the picture."),
    "err_too_blurred": N_("Sheet too blurred to read safely: hold still, let the camera "
                          "focus, use more light."),
    "err_out_of_view": N_("Part of the score grid is outside the picture: hold the phone "
                          "so the whole sheet is in the picture."),
    "err_grid_missing": N_("The printed grid is not where the layout puts it: photograph "
                           "the whole sheet, flat."),
    "err_layout_conflict": N_("The QR code and the corner marks belong to different "
                              "sheets: the code is not this sheet's. Photograph the sheet "
                              "with its own code (or cover the other one), or type the "
                              "entries into the score page."),
    "err_layout_not_as_named": N_("The layout chosen under “Layout” does not match this "
                                  "sheet, which names its own: clear the choice and take "
                                  "the photo again."),
    "err_no_layout": N_("Sheet found, but its QR code cannot be read: choose the game and "
                        "the number of players under “Layout” and take the photo again."),
    "err_names_count": N_("{players} players but {names} names; give one of the two."),
    "err_pairs_game": N_("Pairs are for Escalero; Generala has one column per player."),
    "err_pairs_min": N_("Pairs need at least 4 players, not {n}."),
    "err_serial": N_("Serial {serial}: use 1-8 letters or digits, e.g. K7Q2."),
    "err_number": N_("{what}: give a whole number from {low} to {high}."),
    "err_back_game": N_("The start-poker back is Escalero's side game; choose no back."),
    "err_two_up": N_("Two sheets per page prints A5 sheets on A4 paper; choose A4 paper."),
    "err_no_game": N_("There is no game {id} in the ledger; reload the page."),
    "err_pin_required": N_("PIN required: open the start page and enter the PIN shown "
                           "where the server runs."),
    "err_bad_json": N_("The request body is not valid JSON."),
    "err_send_sheet": N_("Send {\"sheet\": {...}, \"stake\": \"0.50\", \"currency\": "
                         "\"EUR\"}."),
    "err_currency": N_("Currency {currency}: give a short code such as EUR."),
    "err_players": N_("Players: give the number of players on the sheet (1-16)."),
    # The server's limits (web.limits, web.scanning, web.ledger).
    "err_body_over": N_("The request is larger than {mb} MB; send a smaller photo."),
    "err_body_slow": N_("The upload arrived too slowly; send it again, best over Wi-Fi."),
    "err_form_over": N_("The form is larger than {kb} kB or carries a file; use the app's "
                        "own form."),
    "err_json_over": N_("The request body is larger than {kb} kB; send one sheet."),
    "err_pixels_over": N_("The photo is {width}x{height}: {mp} million pixels, more than "
                          "the {limit} million a scan needs; send the camera's JPEG or a "
                          "smaller photo."),
    "err_photo_small": N_("The photo ({width}x{height} px) is too small or too narrow to "
                          "show a score sheet; send the camera's photo, not a thumbnail."),
    "err_names_differ": N_("Two players are called {name}; names must differ (say {name} "
                           "B.) so the ledger can tell them apart."),
    "err_name_long": N_("The name {name} is too long; at most {n} characters."),
    "err_ledger_gone": N_("The ledger file is gone (deleted while the server runs); "
                          "restore it or restart the server."),
    "err_ledger_broken": N_("The ledger file cannot be read or written ({reason}); check "
                            "it on the server; nothing was changed."),
}


def _in_context(t: NullTranslations) -> dict[str, str]:
    """Texts whose English another key has too but another language words otherwise: a
    narrow column's shorter word, the live score sheet's own name ("Tafel")."""
    return {
        "written_total": t.pgettext("short", "Total (written)"),
        "points_short": t.pgettext("short", "Game points"),
        "tafel_title": t.pgettext("live", "Score sheet"),
    }


@cache
def _texts(lang: str) -> dict[str, str]:
    t = translator(lang)
    return {**{key: t.gettext(msgid) for key, msgid in _TEXT.items()}, **_in_context(t)}


def _plurals(t: NullTranslations, n: int) -> dict[str, str]:
    """Texts with the number `n` in them, in the plural form `n` takes."""
    return {
        "n_seconds": t.ngettext(
            "{n} second",
            "{n} seconds", n),
        "n_minutes": t.ngettext(
            "{n} minute",
            "{n} minutes", n),
        "payout_hangs": t.ngettext(
            "Payout depends on {n} cell",
            "Payout depends on {n} cells", n),
        "payout_rest": t.ngettext(
            "{n} other unsure cell: the payout does not hang on it; checking it is optional.",
            "{n} other unsure cells: the payout does not hang on them; checking them is "
            "optional.", n),
        "provisional_amounts": t.ngettext(
            "Amount (provisional: {n} cell open)",
            "Amount (provisional: {n} cells open)", n),
        "incomplete": t.ngettext(
            "{n} cell still open",
            "{n} cells still open", n),
        "print_done": t.ngettext(
            "PDF downloaded: {n} score sheet, no. {first}.",
            "PDF downloaded: {n} score sheets, no. {first} to {last}.", n),
        "review_answered": t.ngettext(
            "{n} cell checked",
            "{n} cells checked", n),
    }


def translate_n(key: str, lang: str, n: int, **params: object) -> str:
    """A text with the number `n` in it, in the plural form `n` takes in `lang`."""
    return _plurals(translator(pick_lang(lang)), n)[key].format(n=n, **params)


def wait_text(seconds: float, lang: str) -> str:
    """How long to wait, rounded up: "2 Sekunden", "4 Minuten"."""
    whole = max(1, math.ceil(seconds))
    if whole < 120:
        return translate_n("n_seconds", lang, whole)
    return translate_n("n_minutes", lang, math.ceil(whole / 60))


def translate(key: str, lang: str, **params: object) -> str:
    text = _texts(pick_lang(lang))[key]
    return text.format(**params) if params else text


def catalog(lang: str) -> dict[str, str]:
    """All strings for one language (handed to the page's JavaScript); a plural text as
    key_one and key_other (the page picks one with Intl.PluralRules; in de, en and es
    CLDR's "one" is gettext's form for 1, and "other" its form for 2)."""
    t = translator(pick_lang(lang))
    one, other = _plurals(t, 1), _plurals(t, 2)
    return {**_texts(pick_lang(lang)), **{f"{k}_one": v for k, v in one.items()},
            **{f"{k}_other": v for k, v in other.items()}}


def pick_lang(requested: str | None) -> str:
    return pick_language(requested)
