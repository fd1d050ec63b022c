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

from escalero.i18n import LANGUAGES, pick_language, translator

LANGS = LANGUAGES


@cache
def _texts(lang: str) -> dict[str, str]:
    t = translator(lang)
    _ = t.gettext
    return {
        "title": _("Escalero"),
        "nav_home": _("Home"),
        "nav_tafel": _("Score"),
        "nav_scan": _("Photo"),
        "nav_print": _("Print"),
        "nav_ledger": _("Ledger"),
        "home_tafel": _("Keep score live"),
        "home_tafel_sub": _("Choose the game and players, type entries as you play"),
        "home_scan": _("Read a photo of a score sheet"),
        "home_scan_sub": _("Take a photo, check unsure cells, settle"),
        "home_print": _("Print score sheets"),
        "home_print_sub": _("PDF with markers for scanning later"),
        "home_ledger": _("Ledger and games"),
        "home_ledger_sub": _("Balances across games and evenings, CSV export"),
        "game": _("Game"),
        "variants": _("House rules"),
        "players": _("Players"),
        "players_hint": _("One name a line; a pair as “Anna & Ben”"),
        "start": _("Start"),
        "new_game": _("New game"),
        "stake": _("Stake per point"),
        "currency": _("Currency"),
        "total": _("Total"),
        "written_total": t.pgettext("short", "Total (written)"),
        "points": _("Game points"),
        "points_short": t.pgettext("short", "Game points"),
        "amount": _("Amount"),
        "transfers": _("Who pays whom"),
        "pays": _("pays"),
        "problems": _("To check"),
        "notes": _("Notes (nothing to do)"),
        "no_problems": _("Everything is fine."),
        "struck_hint": _("0 or x = struck"),
        "not_allowed": _("not allowed"),
        "allowed": _("allowed"),
        "save": _("Save to ledger"),
        "saved": _("Saved."),
        "confirm_duplicate": _("This sheet was settled before. Count it again?"),
        "photo": _("Photo"),
        "take_photo": _("Take or choose a photo"),
        "reading": _("Reading the sheet …"),
        "scan_help": _("Lay the sheet flat, all four corner markers in the picture."),
        "flagged": _("unsure: please check"),
        "flagged_count": _("unsure cells to check"),
        "read_as": _("read"),
        "column": _("Column"),
        "winner": _("Winner"),
        "print_title": _("Print score sheets"),
        "download_pdf": _("Download PDF"),
        "ledger_title": _("Ledger"),
        "balances": _("Balances"),
        "all_games": _("all games"),
        "evening": _("Evening"),
        "games": _("Games"),
        "date": _("Date"),
        "serial": _("Serial"),
        "player": _("Player"),
        "export_csv": _("Export CSV"),
        "no_games": _("No games saved yet."),
        "pin_title": _("Enter PIN"),
        "pin_hint": _("The PIN is shown in the terminal where the server runs."),
        "pin_wrong": _("Wrong PIN."),
        "pin_locked": _("Too many tries: please wait {wait}, then enter the PIN again."),
        "pin_wrong_wait": _("Wrong PIN. The next try is possible in {wait}."),
        "err_cross_site": _("Requests from other web sites are refused; use the app's own pages."),
        "err_unknown_host": _("Unknown host name; open the app via 127.0.0.1 or localhost."),
        "ok": _("OK"),
        "error": _("Error"),
        "offline": _("Server not reachable."),
        "side": _("Side"),
        "tafel_title": t.pgettext("live", "Score sheet"),
        "clear": _("Clear"),
        "confirm_clear": _("Delete all entries?"),
        "variant_strasse-25": _("Straight 25 (served 30)"),
        "variant_doppel-grande": _("Double Grande (100)"),
        "variant_one-column": _("One column only"),
        "variant_weights-123": _("Columns count 1-2-3"),
        "game_escalero": _("Escalero"),
        "game_generala": _("Generala"),
        "pairs": _("Pairs (two names per side)"),
        "sides": _("Sides"),
        "pages": _("Number of sheets"),
        "paper": _("Paper"),
        "first_serial": _("Serial base"),
        "serial_hint": _("1-8 letters/digits; empty = random; sheets become K7Q2-001, -002 …"),
        "names": _("Names"),
        "two_up": _("Two sheets per page"),
        "back": _("Back"),
        "back_none": _("blank"),
        "back_start-poker": _("Start-Poker tally"),
        "language": _("Language"),
        "names_print_hint": _("optional: names are printed; one name a line; pairs are formed "
                              "in order"),
        "saved_games": _("Saved games"),
        "evenings": _("Evenings"),
        "scan_again": _("Another photo"),
        "next": _("Next"),
        "delete": _("Delete"),
        "deleted": _("Game deleted."),
        "undo": _("Undo"),
        "err_undo_gone": _("This deletion can no longer be undone (the server restarted, or "
                           "it was undone already)."),
        "evening_pays": _("Who pays whom this evening"),
        "evening_even": _("Nobody owes anybody anything this evening."),
        "saved_again": _("save no. {n} of this sheet"),
        "confirm_delete": _("Delete this game from the ledger?"),
        "names_hint": _("Tap the names at the top to change them (a pair as “Anna & Ben”)."),
        "layout": _("Layout (only if the QR code is unreadable)"),
        "layout_hint": _("Otherwise the app reads everything from the sheet's QR code."),
        "check_flags": _("Check"),
        "house_title": _("Settlement terms"),
        "house_preset": _("Preset"),
        "house_piatnik": _("Piatnik (default)"),
        "house_wirtshaus": _("Pub (as the Escalero app)"),
        "house_custom": _("custom"),
        "house_points": _("Points per column"),
        "house_bonus": _("All three: extra from each opponent"),
        "house_split": _("Tie at the top: split (the others pay)"),
        "house_hint": _("Kept for this table (the same players)."),
        "flag_hint": _("yellow = read with doubt"),
        "payout_sure": _("Payout certain"),
        "payout_unsure": _("Payout not certain yet"),
        "payout_unfinished": _("Sheet not finished: payout provisional"),
        "payout_more": _("Now {pct} sure, certain from {need}. Every answer is counted again: "
                         "more cells may be asked."),
        "review_now": _("Payout {pct} sure (certain from {need})"),
        "confirm_unsure_save": _("The payout is not certain yet. Save it to the ledger anyway?"),
        "confirm_saved_again": _("Already saved — save it again?"),
        "err_duplicate_serial": _("Sheet {serial} was already settled ({earlier})."),
        "err_duplicate_game": _("This game is already in the ledger ({earlier})."),
        "guest": _("Guest"),
        "name_from_sheet": _("Name on the sheet"),
        "names_needed": _("Type the names: the photo does not read the name boxes."),
        "confirm_guests": _("Still without a name: {names}. Save them as guests? A guest "
                            "counts in this game only."),
        "err_unnamed": _("{names} has no name yet: type the names, or save as guests."),
        "review_illegal": _("unreadable / not allowed"),
        "review_doubt": _("hardly readable: perhaps a value this row does not allow"),
        "review_type": _("What is written? (x = struck)"),
        "review_illegal_hint": _("A value the row does not allow is marked red and does not "
                                 "count."),
        "handwriting": _("Handwriting in the cell"),
        "provisional": _("provisional"),
        "stake_none": _("no stake"),
        "points_bar": _("Points"),
        "shrinking": _("Shrinking the photo …"),
        "uploading": _("Sending the photo: {p} %"),
        "evening_rule": _("Games after midnight count to the evening before, up to 06:00."),
        "err_no_photo": _("No photo received; choose or take a photo of the sheet."),
        "err_not_photo": _("This file is not a photo; upload a JPEG, PNG, HEIC or WebP image."),
        "err_too_large": _("The photo is larger than {mb} MB; take it at a lower resolution "
                           "or send a JPEG."),
        "err_photo_damaged": _("The photo is damaged or arrived incomplete: send it again or "
                               "take a new one."),
        "err_no_sheet": _("No score sheet found: hold the phone so all four corner marks are "
                          "in the picture."),
        "err_two_sheets": _("Two score sheets in the picture: photograph one sheet at a time "
                            "(cover or fold away the other)."),
        "err_too_small": _("Sheet too small in the photo to read safely: move closer so the "
                           "sheet fills the picture."),
        "err_too_blurred": _("Sheet too blurred to read safely: hold still, let the camera "
                             "focus, use more light."),
        "err_out_of_view": _("Part of the score grid is outside the picture: hold the phone "
                             "so the whole sheet is in the picture."),
        "err_grid_missing": _("The printed grid is not where the layout puts it: photograph "
                              "the whole sheet, flat."),
        "err_layout_conflict": _("The QR code and the corner marks belong to different "
                                 "sheets: the code is not this sheet's. Photograph the sheet "
                                 "with its own code (or cover the other one), or type the "
                                 "entries into the score page."),
        "err_layout_not_as_named": _("The layout chosen under “Layout” does not match this "
                                     "sheet, which names its own: clear the choice and take "
                                     "the photo again."),
        "err_no_layout": _("Sheet found, but its QR code cannot be read: choose the game and "
                           "the number of players under “Layout” and take the photo again."),
        "err_names_count": _("{players} players but {names} names; give one of the two."),
        "err_pairs_game": _("Pairs are for Escalero; Generala has one column per player."),
        "err_pairs_min": _("Pairs need at least 4 players, not {n}."),
        "err_serial": _("Serial {serial}: use 1-8 letters or digits, e.g. K7Q2."),
        "err_number": _("{what}: give a whole number from {low} to {high}."),
        "err_back_game": _("The start-poker back is Escalero's side game; choose no back."),
        "err_two_up": _("Two sheets per page prints A5 sheets on A4 paper; choose A4 paper."),
        "err_no_game": _("There is no game {id} in the ledger; reload the page."),
        "err_pin_required": _("PIN required: open the start page and enter the PIN shown "
                              "where the server runs."),
        "err_bad_json": _("The request body is not valid JSON."),
        "err_send_sheet": _("Send {\"sheet\": {...}, \"stake\": \"0.50\", \"currency\": "
                            "\"EUR\"}."),
        "err_currency": _("Currency {currency}: give a short code such as EUR."),
        "err_players": _("Players: give the number of players on the sheet (1-16)."),
        # The server's limits (web.limits, web.services, web.ledger).
        "err_body_over": _("The request is larger than {mb} MB; send a smaller photo."),
        "err_body_slow": _("The upload arrived too slowly; send it again, best over Wi-Fi."),
        "err_form_over": _("The form is larger than {kb} kB or carries a file; use the app's "
                           "own form."),
        "err_json_over": _("The request body is larger than {kb} kB; send one sheet."),
        "err_pixels_over": _("The photo is {width}x{height}: {mp} million pixels, more than "
                             "the {limit} million a scan needs; send the camera's JPEG or a "
                             "smaller photo."),
        "err_photo_small": _("The photo ({width}x{height} px) is too small or too narrow to "
                             "show a score sheet; send the camera's photo, not a thumbnail."),
        "err_names_differ": _("Two players are called {name}; names must differ (say {name} "
                              "B.) so the ledger can tell them apart."),
        "err_name_long": _("The name {name} is too long; at most {n} characters."),
        "err_ledger_gone": _("The ledger file is gone (deleted while the server runs); "
                             "restore it or restart the server."),
        "err_ledger_broken": _("The ledger file cannot be read or written ({reason}); check "
                               "it on the server; nothing was changed."),
    }


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
