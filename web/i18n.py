"""Every word the web app shows, in German (default), English and Spanish: page texts and
the server's messages (errors shown on a page), one catalog.

Row labels and validation messages come from scoring (which has the same three languages);
only the app's own words live here. A message key may hold {placeholders}.
"""

from __future__ import annotations

import math

from escalero.web.locale_format import plural_category

LANGS = ("de", "en", "es")
DEFAULT_LANG = "de"

_TEXT: dict[str, tuple[str, str, str]] = {
    # key: (German, English, Spanish)
    "title": (
        "Escalero",
        "Escalero",
        "Escalero",
    ),
    "nav_home": (
        "Start",
        "Home",
        "Inicio",
    ),
    "nav_tafel": (
        "Tafel",
        "Score",
        "Planilla",
    ),
    "nav_scan": (
        "Foto",
        "Photo",
        "Foto",
    ),
    "nav_print": (
        "Drucken",
        "Print",
        "Imprimir",
    ),
    "nav_ledger": (
        "Kassa",
        "Ledger",
        "Caja",
    ),
    "home_tafel": (
        "Tafel: live mitschreiben",
        "Keep score live",
        "Planilla: anotar en vivo",
    ),
    "home_tafel_sub": (
        "Spiel wählen, Spieler eintragen, während des Spiels schreiben",
        "Choose the game and players, type entries as you play",
        "Elegir el juego y los jugadores, anotar durante la partida",
    ),
    "home_scan": (
        "Foto einer Spieltabelle auswerten",
        "Read a photo of a score sheet",
        "Leer la foto de una planilla",
    ),
    "home_scan_sub": (
        "Fotografieren, unsichere Felder prüfen, abrechnen",
        "Take a photo, check unsure cells, settle",
        "Sacar la foto, revisar las casillas dudosas, liquidar",
    ),
    "home_print": (
        "Spieltabellen drucken",
        "Print score sheets",
        "Imprimir planillas",
    ),
    "home_print_sub": (
        "PDF mit Markierungen zum späteren Einlesen",
        "PDF with markers for scanning later",
        "PDF con marcas para leerlo después",
    ),
    "home_ledger": (
        "Kassa und Spielliste",
        "Ledger and games",
        "Caja y partidas",
    ),
    "home_ledger_sub": (
        "Salden über Spiele und Abende, CSV-Export",
        "Balances across games and evenings, CSV export",
        "Saldos por partidas y noches, exportar CSV",
    ),
    "game": (
        "Spiel",
        "Game",
        "Juego",
    ),
    "variants": (
        "Hausregeln",
        "House rules",
        "Reglas de la casa",
    ),
    "players": (
        "Spieler",
        "Players",
        "Jugadores",
    ),
    "players_hint": (
        "Ein Name pro Zeile; ein Paar als „Anna & Ben“",
        "One name a line; a pair as “Anna & Ben”",
        "Un nombre por línea; una pareja como «Ana & Beto»",
    ),
    "start": (
        "Los geht's",
        "Start",
        "Empezar",
    ),
    "new_game": (
        "Neues Spiel",
        "New game",
        "Nueva partida",
    ),
    "stake": (
        "Einsatz pro Punkt",
        "Stake per point",
        "Apuesta por punto",
    ),
    "currency": (
        "Währung",
        "Currency",
        "Moneda",
    ),
    "total": (
        "Summe",
        "Total",
        "Total",
    ),
    "written_total": (
        "Summe (geschr.)",
        "Total (written)",
        "Total (escrito)",
    ),
    "points": (
        "Partiepunkte",
        "Game points",
        "Puntos de partida",
    ),
    "points_short": (
        "Partiepunkte",
        "Game points",
        "Puntos",
    ),
    "amount": (
        "Betrag",
        "Amount",
        "Importe",
    ),
    "transfers": (
        "Wer zahlt wem",
        "Who pays whom",
        "Quién paga a quién",
    ),
    "pays": (
        "zahlt",
        "pays",
        "paga a",
    ),
    "problems": (
        "Zu prüfen",
        "To check",
        "A revisar",
    ),
    "notes": (
        "Hinweise (nichts zu tun)",
        "Notes (nothing to do)",
        "Notas (nada que hacer)",
    ),
    "no_problems": (
        "Alles in Ordnung.",
        "Everything is fine.",
        "Todo en orden.",
    ),
    "struck_hint": (
        "0 oder x = gestrichen",
        "0 or x = struck",
        "0 o x = tachado",
    ),
    "not_allowed": (
        "nicht erlaubt",
        "not allowed",
        "no permitido",
    ),
    "allowed": (
        "erlaubt",
        "allowed",
        "permitido",
    ),
    "save": (
        "In die Kassa",
        "Save to ledger",
        "Guardar en caja",
    ),
    "saved": (
        "Gespeichert.",
        "Saved.",
        "Guardado.",
    ),
    "confirm_duplicate": (
        "Diese Tabelle wurde schon abgerechnet. Trotzdem noch einmal zählen?",
        "This sheet was settled before. Count it again?",
        "Esta planilla ya se liquidó. ¿Contarla otra vez?",
    ),
    "photo": (
        "Foto",
        "Photo",
        "Foto",
    ),
    "take_photo": (
        "Foto aufnehmen oder wählen",
        "Take or choose a photo",
        "Sacar o elegir una foto",
    ),
    "reading": (
        "Lese die Tabelle …",
        "Reading the sheet …",
        "Leyendo la planilla …",
    ),
    "scan_help": (
        "Tabelle flach hinlegen, alle vier Ecken-Markierungen im Bild.",
        "Lay the sheet flat, all four corner markers in the picture.",
        "Planilla plana, las cuatro marcas de las esquinas en la imagen.",
    ),
    "flagged": (
        "unsicher: bitte prüfen",
        "unsure: please check",
        "dudosa: revisar",
    ),
    "flagged_count": (
        "unsichere Felder zu prüfen",
        "unsure cells to check",
        "casillas dudosas a revisar",
    ),
    "read_as": (
        "gelesen",
        "read",
        "leído",
    ),
    "column": (
        "Kolonne",
        "Column",
        "Columna",
    ),
    "winner": (
        "Sieger",
        "Winner",
        "Ganador",
    ),
    "print_title": (
        "Spieltabellen drucken",
        "Print score sheets",
        "Imprimir planillas",
    ),
    "download_pdf": (
        "PDF herunterladen",
        "Download PDF",
        "Descargar PDF",
    ),
    "ledger_title": (
        "Kassa",
        "Ledger",
        "Caja",
    ),
    "balances": (
        "Salden",
        "Balances",
        "Saldos",
    ),
    "all_games": (
        "alle Spiele",
        "all games",
        "todas las partidas",
    ),
    "evening": (
        "Abend",
        "Evening",
        "Noche",
    ),
    "games": (
        "Spiele",
        "Games",
        "Partidas",
    ),
    "date": (
        "Datum",
        "Date",
        "Fecha",
    ),
    "serial": (
        "Nr.",
        "Serial",
        "N.º",
    ),
    "player": (
        "Spieler",
        "Player",
        "Jugador",
    ),
    "export_csv": (
        "CSV exportieren",
        "Export CSV",
        "Exportar CSV",
    ),
    "no_games": (
        "Noch keine Spiele gespeichert.",
        "No games saved yet.",
        "Todavía no hay partidas guardadas.",
    ),
    "pin_title": (
        "PIN eingeben",
        "Enter PIN",
        "Ingresar PIN",
    ),
    "pin_hint": (
        "Die PIN steht im Terminal, in dem der Server läuft.",
        "The PIN is shown in the terminal where the server runs.",
        "El PIN aparece en la terminal donde corre el servidor.",
    ),
    "pin_wrong": (
        "Falsche PIN.",
        "Wrong PIN.",
        "PIN incorrecto.",
    ),
    "pin_locked": (
        "Zu viele Versuche: bitte {wait} warten, dann die PIN noch einmal eingeben.",
        "Too many tries: please wait {wait}, then enter the PIN again.",
        "Demasiados intentos: esperá {wait} y volvé a ingresar el PIN.",
    ),
    "pin_wrong_wait": (
        "Falsche PIN. Der nächste Versuch geht in {wait}.",
        "Wrong PIN. The next try is possible in {wait}.",
        "PIN incorrecto. El próximo intento es posible en {wait}.",
    ),
    "err_cross_site": (
        "Anfragen von anderen Webseiten werden abgelehnt: die Seiten der App selbst verwenden.",
        "Requests from other web sites are refused; use the app's own pages.",
        "Se rechazan las solicitudes de otros sitios web: usá las páginas de la app.",
    ),
    "err_unknown_host": (
        "Unbekannter Hostname: die App über 127.0.0.1 oder localhost öffnen.",
        "Unknown host name; open the app via 127.0.0.1 or localhost.",
        "Nombre de host desconocido: abrí la app con 127.0.0.1 o localhost.",
    ),
    "ok": (
        "OK",
        "OK",
        "OK",
    ),
    "error": (
        "Fehler",
        "Error",
        "Error",
    ),
    "offline": (
        "Server nicht erreichbar.",
        "Server not reachable.",
        "No se puede conectar con el servidor.",
    ),
    "side": (
        "Partei",
        "Side",
        "Equipo",
    ),
    "tafel_title": (
        "Tafel",
        "Score sheet",
        "Planilla",
    ),
    "clear": (
        "Leeren",
        "Clear",
        "Vaciar",
    ),
    "confirm_clear": (
        "Alle Einträge löschen?",
        "Delete all entries?",
        "¿Borrar todas las anotaciones?",
    ),
    "variant_strasse-25": (
        "Straße 25 (serviert 30)",
        "Straight 25 (served 30)",
        "Escalera 25 (servida 30)",
    ),
    "variant_doppel-grande": (
        "Doppel-Grande (100)",
        "Double Grande (100)",
        "Doble Grande (100)",
    ),
    "variant_one-column": (
        "Nur eine Kolonne",
        "One column only",
        "Una sola columna",
    ),
    "variant_weights-123": (
        "Kolonnen zählen 1-2-3",
        "Columns count 1-2-3",
        "Columnas valen 1-2-3",
    ),
    "game_escalero": (
        "Escalero",
        "Escalero",
        "Escalero",
    ),
    "game_generala": (
        "Generala",
        "Generala",
        "Generala",
    ),
    "pairs": (
        "Paare (je zwei Namen pro Partei)",
        "Pairs (two names per side)",
        "Parejas (dos nombres por equipo)",
    ),
    "sides": (
        "Parteien",
        "Sides",
        "Equipos",
    ),
    "pages": (
        "Anzahl Blätter",
        "Number of sheets",
        "Cantidad de hojas",
    ),
    "paper": (
        "Papier",
        "Paper",
        "Papel",
    ),
    "first_serial": (
        "Serien-Kennung",
        "Serial base",
        "Código de serie",
    ),
    "serial_hint": (
        "1-8 Buchstaben/Ziffern; leer = zufällig; Blätter werden K7Q2-001, -002 …",
        "1-8 letters/digits; empty = random; sheets become K7Q2-001, -002 …",
        "1-8 letras/cifras; vacío = al azar; las hojas serán K7Q2-001, -002 …",
    ),
    "names": (
        "Namen",
        "Names",
        "Nombres",
    ),
    "two_up": (
        "Zwei Tabellen pro Blatt",
        "Two sheets per page",
        "Dos planillas por hoja",
    ),
    "back": (
        "Rückseite",
        "Back",
        "Dorso",
    ),
    "back_none": (
        "leer",
        "blank",
        "vacío",
    ),
    "back_start-poker": (
        "Start-Poker-Strichliste",
        "Start-Poker tally",
        "Lista de Start-Póker",
    ),
    "language": (
        "Sprache",
        "Language",
        "Idioma",
    ),
    "names_print_hint": (
        "optional: Namen werden vorgedruckt; ein Name pro Zeile; Paare werden der Reihe nach "
        "gebildet",
        "optional: names are printed; one name a line; pairs are formed in order",
        "opcional: los nombres se imprimen; un nombre por línea; las parejas se forman en orden",
    ),
    "saved_games": (
        "Gespeicherte Spiele",
        "Saved games",
        "Partidas guardadas",
    ),
    "evenings": (
        "Abende",
        "Evenings",
        "Noches",
    ),
    "scan_again": (
        "Anderes Foto",
        "Another photo",
        "Otra foto",
    ),
    "next": (
        "Weiter",
        "Next",
        "Siguiente",
    ),
    "delete": (
        "Löschen",
        "Delete",
        "Borrar",
    ),
    "deleted": (
        "Spiel gelöscht.",
        "Game deleted.",
        "Partida borrada.",
    ),
    "undo": (
        "Rückgängig",
        "Undo",
        "Deshacer",
    ),
    "err_undo_gone": (
        "Dieses Löschen lässt sich nicht mehr rückgängig machen (der Server wurde neu "
        "gestartet oder es ist schon geschehen).",
        "This deletion can no longer be undone (the server restarted, or it was undone "
        "already).",
        "Este borrado ya no se puede deshacer (el servidor se reinició o ya se deshizo).",
    ),
    "evening_pays": (
        "Wer zahlt wem an diesem Abend",
        "Who pays whom this evening",
        "Quién paga a quién esta noche",
    ),
    "evening_even": (
        "An diesem Abend ist niemand jemandem etwas schuldig.",
        "Nobody owes anybody anything this evening.",
        "Esta noche nadie le debe nada a nadie.",
    ),
    "saved_again": (
        "{n}. Speicherung dieses Blatts",
        "save no. {n} of this sheet",
        "guardado n.º {n} de esta planilla",
    ),
    "confirm_delete": (
        "Dieses Spiel aus der Kassa löschen?",
        "Delete this game from the ledger?",
        "¿Borrar esta partida de la caja?",
    ),
    "names_hint": (
        "Namen oben antippen, um sie zu ändern (ein Paar als „Anna & Ben“).",
        "Tap the names at the top to change them (a pair as “Anna & Ben”).",
        "Tocá los nombres arriba para cambiarlos (una pareja como «Ana & Beto»).",
    ),
    "layout": (
        "Layout (nur falls der QR-Code unlesbar ist)",
        "Layout (only if the QR code is unreadable)",
        "Formato (solo si el código QR no se puede leer)",
    ),
    "layout_hint": (
        "Sonst liest die App alles aus dem QR-Code der Tabelle.",
        "Otherwise the app reads everything from the sheet's QR code.",
        "Si no, la app lee todo del código QR de la planilla.",
    ),
    "check_flags": (
        "Prüfen",
        "Check",
        "Revisar",
    ),
    "house_title": (
        "Abrechnung",
        "Settlement terms",
        "Liquidación",
    ),
    "house_preset": (
        "Vorlage",
        "Preset",
        "Plantilla",
    ),
    "house_piatnik": (
        "Piatnik (Standard)",
        "Piatnik (default)",
        "Piatnik (estándar)",
    ),
    "house_wirtshaus": (
        "Wirtshaus (wie die Escalero-App)",
        "Pub (as the Escalero app)",
        "Bar (como la app Escalero)",
    ),
    "house_custom": (
        "eigene",
        "custom",
        "propia",
    ),
    "house_points": (
        "Partiepunkte je Kolonne",
        "Points per column",
        "Puntos por columna",
    ),
    "house_bonus": (
        "Alle drei: zusätzlich von jedem Gegner",
        "All three: extra from each opponent",
        "Las tres: extra de cada rival",
    ),
    "house_split": (
        "Gleichstand oben: geteilt (die anderen zahlen)",
        "Tie at the top: split (the others pay)",
        "Empate arriba: se reparte (los demás pagan)",
    ),
    "house_hint": (
        "Gilt für diesen Tisch (dieselben Spieler) und wird gespeichert.",
        "Kept for this table (the same players).",
        "Vale para esta mesa (los mismos jugadores) y se guarda.",
    ),
    "flag_hint": (
        "gelb = unsicher gelesen",
        "yellow = read with doubt",
        "amarillo = leído con dudas",
    ),
    "payout_sure": (
        "Auszahlung sicher",
        "Payout certain",
        "Pago seguro",
    ),
    "payout_unsure": (
        "Auszahlung noch nicht sicher",
        "Payout not certain yet",
        "Pago todavía no seguro",
    ),
    "payout_unfinished": (
        "Blatt nicht fertig: Auszahlung vorläufig",
        "Sheet not finished: payout provisional",
        "Planilla sin terminar: pago provisorio",
    ),
    "payout_more": (
        "Jetzt {pct} sicher, sicher ab {need}. Nach jeder Antwort wird neu gerechnet: es können "
        "Felder dazukommen.",
        "Now {pct} sure, certain from {need}. Every answer is counted again: more cells may "
        "be asked.",
        "Ahora {pct} seguro, seguro desde {need}. Cada respuesta se recalcula: pueden sumarse "
        "casillas.",
    ),
    "review_now": (
        "Auszahlung {pct} sicher (sicher ab {need})",
        "Payout {pct} sure (certain from {need})",
        "Pago {pct} seguro (seguro desde {need})",
    ),
    "confirm_unsure_save": (
        "Die Auszahlung ist noch nicht sicher. Trotzdem in die Kassa?",
        "The payout is not certain yet. Save it to the ledger anyway?",
        "El pago todavía no es seguro. ¿Guardarlo igual en la caja?",
    ),
    "confirm_saved_again": (
        "Schon gespeichert — nochmals speichern?",
        "Already saved — save it again?",
        "Ya guardada — ¿guardarla otra vez?",
    ),
    "err_duplicate_serial": (
        "Blatt {serial} wurde schon abgerechnet ({earlier}).",
        "Sheet {serial} was already settled ({earlier}).",
        "La planilla {serial} ya se liquidó ({earlier}).",
    ),
    "err_duplicate_game": (
        "Dieses Spiel ist schon in der Kassa ({earlier}).",
        "This game is already in the ledger ({earlier}).",
        "Esta partida ya está en la caja ({earlier}).",
    ),
    "guest": (
        "Gast",
        "Guest",
        "Invitado",
    ),
    "name_from_sheet": (
        "Name auf dem Blatt",
        "Name on the sheet",
        "Nombre en la planilla",
    ),
    "names_needed": (
        "Namen eintragen: das Foto liest die Namensfelder nicht.",
        "Type the names: the photo does not read the name boxes.",
        "Escribí los nombres: la foto no lee las casillas de nombre.",
    ),
    "confirm_guests": (
        "Noch ohne Namen: {names}. Als Gäste speichern? Gäste zählen nur in diesem Spiel.",
        "Still without a name: {names}. Save them as guests? A guest counts in this game only.",
        "Todavía sin nombre: {names}. ¿Guardarlos como invitados? Un invitado cuenta solo en "
        "esta partida.",
    ),
    "err_unnamed": (
        "{names} hat noch keinen Namen: Namen eintragen oder als Gast speichern.",
        "{names} has no name yet: type the names, or save as guests.",
        "{names} todavía no tiene nombre: escribí los nombres o guardá como invitados.",
    ),
    "review_illegal": (
        "nicht lesbar / nicht erlaubt",
        "unreadable / not allowed",
        "ilegible / no permitido",
    ),
    "review_doubt": (
        "kaum lesbar: vielleicht ein Wert, den diese Zeile nicht erlaubt",
        "hardly readable: perhaps a value this row does not allow",
        "casi ilegible: quizás un valor que esta fila no permite",
    ),
    "review_type": (
        "Was steht da? (x = gestrichen)",
        "What is written? (x = struck)",
        "¿Qué dice? (x = tachado)",
    ),
    "review_illegal_hint": (
        "Ein Wert, den die Zeile nicht erlaubt, wird rot markiert und zählt nicht.",
        "A value the row does not allow is marked red and does not count.",
        "Un valor que la fila no permite se marca en rojo y no cuenta.",
    ),
    "handwriting": (
        "Handschrift im Feld",
        "Handwriting in the cell",
        "Escritura en la casilla",
    ),
    "provisional": (
        "vorläufig",
        "provisional",
        "provisorio",
    ),
    "stake_none": (
        "ohne Einsatz",
        "no stake",
        "sin apuesta",
    ),
    "points_bar": (
        "Punkte",
        "Points",
        "Puntos",
    ),
    "shrinking": (
        "Foto wird verkleinert …",
        "Shrinking the photo …",
        "Achicando la foto …",
    ),
    "uploading": (
        "Foto wird gesendet: {p} %",
        "Sending the photo: {p} %",
        "Enviando la foto: {p} %",
    ),
    "evening_rule": (
        "Spiele nach Mitternacht zählen bis 06:00 Uhr zum Abend davor.",
        "Games after midnight count to the evening before, up to 06:00.",
        "Las partidas después de medianoche cuentan para la noche anterior, hasta las 06:00.",
    ),
    "err_no_photo": (
        "Kein Foto erhalten: ein Foto der Tabelle wählen oder aufnehmen.",
        "No photo received; choose or take a photo of the sheet.",
        "No llegó ninguna foto: elegí o sacá una foto de la planilla.",
    ),
    "err_not_photo": (
        "Diese Datei ist kein Foto: ein JPEG-, PNG-, HEIC- oder WebP-Bild senden.",
        "This file is not a photo; upload a JPEG, PNG, HEIC or WebP image.",
        "Este archivo no es una foto: enviá una imagen JPEG, PNG, HEIC o WebP.",
    ),
    "err_too_large": (
        "Das Foto ist größer als {mb} MB: mit geringerer Auflösung aufnehmen.",
        "The photo is larger than {mb} MB; take it at a lower resolution or send a JPEG.",
        "La foto pesa más de {mb} MB: sacala con menos resolución.",
    ),
    "err_photo_damaged": (
        "Das Foto ist beschädigt oder nur zum Teil angekommen: noch einmal senden oder neu "
        "aufnehmen.",
        "The photo is damaged or arrived incomplete: send it again or take a new one.",
        "La foto está dañada o llegó incompleta: enviala otra vez o sacá una nueva.",
    ),
    "err_no_sheet": (
        "Keine Spieltabelle gefunden: das Handy so halten, dass alle vier Eckmarken im Bild sind.",
        "No score sheet found: hold the phone so all four corner marks are in the picture.",
        "No se encontró ninguna planilla: sostené el teléfono de modo que las cuatro marcas de "
        "las esquinas estén en la imagen.",
    ),
    "err_two_sheets": (
        "Zwei Spieltabellen im Bild: immer nur eine fotografieren (die andere abdecken oder "
        "wegfalten).",
        "Two score sheets in the picture: photograph one sheet at a time (cover or fold away the "
        "other).",
        "Dos planillas en la imagen: fotografiá una sola (tapá o doblá la otra).",
    ),
    "err_too_small": (
        "Tabelle zu klein im Bild, um sicher zu lesen: näher herangehen, bis die Tabelle das "
        "Bild füllt.",
        "Sheet too small in the photo to read safely: move closer so the sheet fills the picture.",
        "La planilla sale muy chica para leerla con seguridad: acercate hasta que llene la "
        "imagen.",
    ),
    "err_too_blurred": (
        "Tabelle zu unscharf, um sicher zu lesen: ruhig halten, scharf stellen lassen, mehr "
        "Licht.",
        "Sheet too blurred to read safely: hold still, let the camera focus, use more light.",
        "La planilla sale borrosa: quedate quieto, dejá que la cámara enfoque, usá más luz.",
    ),
    "err_out_of_view": (
        "Ein Teil der Tabelle ist außerhalb des Bildes: das Handy so halten, dass die ganze "
        "Tabelle im Bild ist.",
        "Part of the score grid is outside the picture: hold the phone so the whole sheet is in "
        "the picture.",
        "Parte de la planilla queda fuera de la imagen: sostené el teléfono de modo que entre "
        "entera.",
    ),
    "err_grid_missing": (
        "Das gedruckte Raster ist nicht dort, wo es sein sollte: die ganze Tabelle flach "
        "fotografieren.",
        "The printed grid is not where the layout puts it: photograph the whole sheet, flat.",
        "La grilla impresa no está donde debería: fotografiá la planilla entera y plana.",
    ),
    "err_layout_conflict": (
        "QR-Code und Eckmarken gehören zu verschiedenen Tabellen: der QR-Code ist nicht der "
        "dieses Blatts. Das Blatt mit seinem eigenen Code fotografieren (oder den fremden "
        "Code abdecken) oder die Einträge in die Tafel übertragen.",
        "The QR code and the corner marks belong to different sheets: the code is not this "
        "sheet's. Photograph the sheet with its own code (or cover the other one), or type "
        "the entries into the score page.",
        "El código QR y las marcas de las esquinas son de planillas distintas: el código no es "
        "de esta planilla. Fotografiá la planilla con su propio código (o tapá el otro), o "
        "pasá las anotaciones a la planilla en pantalla.",
    ),
    "err_layout_not_as_named": (
        "Das unter „Layout“ gewählte Layout passt nicht zu dieser Tabelle, die ihr eigenes "
        "nennt: die Auswahl leeren und noch einmal fotografieren.",
        "The layout chosen under “Layout” does not match this sheet, which names its own: "
        "clear the choice and take the photo again.",
        "El formato elegido en «Formato» no coincide con esta planilla, que indica el suyo: "
        "borrá la elección y sacá la foto otra vez.",
    ),
    "err_no_layout": (
        "Tabelle gefunden, aber ihr QR-Code ist unlesbar: unter „Layout“ Spiel und Spielerzahl "
        "wählen und noch einmal fotografieren.",
        "Sheet found, but its QR code cannot be read: choose the game and the number of players "
        "under “Layout” and take the photo again.",
        "Se encontró la planilla, pero su código QR no se puede leer: elegí el juego y la "
        "cantidad de jugadores en «Formato» y sacá la foto otra vez.",
    ),
    "err_names_count": (
        "{players} Spieler, aber {names} Namen: eines von beiden angeben.",
        "{players} players but {names} names; give one of the two.",
        "{players} jugadores pero {names} nombres: indicá solo uno de los dos.",
    ),
    "err_pairs_game": (
        "Paare gibt es nur bei Escalero; Generala hat eine Kolonne pro Spieler.",
        "Pairs are for Escalero; Generala has one column per player.",
        "Las parejas son para Escalero; Generala tiene una columna por jugador.",
    ),
    "err_pairs_min": (
        "Paare brauchen mindestens 4 Spieler, nicht {n}.",
        "Pairs need at least 4 players, not {n}.",
        "Las parejas necesitan al menos 4 jugadores, no {n}.",
    ),
    "err_serial": (
        "Serien-Kennung {serial}: 1-8 Buchstaben oder Ziffern, z. B. K7Q2.",
        "Serial {serial}: use 1-8 letters or digits, e.g. K7Q2.",
        "Serie {serial}: usá 1-8 letras o cifras, p. ej. K7Q2.",
    ),
    "err_number": (
        "{what}: eine ganze Zahl von {low} bis {high} angeben.",
        "{what}: give a whole number from {low} to {high}.",
        "{what}: indicá un número entero de {low} a {high}.",
    ),
    "err_back_game": (
        "Die Start-Poker-Rückseite gehört zu Escalero: keine Rückseite wählen.",
        "The start-poker back is Escalero's side game; choose no back.",
        "El dorso de Start-Póker es de Escalero: no elijas dorso.",
    ),
    "err_two_up": (
        "Zwei Tabellen pro Blatt druckt A5 auf A4: A4-Papier wählen.",
        "Two sheets per page prints A5 sheets on A4 paper; choose A4 paper.",
        "Dos planillas por hoja imprime A5 sobre A4: elegí papel A4.",
    ),
    "err_no_game": (
        "Spiel {id} ist nicht in der Kassa: Seite neu laden.",
        "There is no game {id} in the ledger; reload the page.",
        "La partida {id} no está en la caja: recargá la página.",
    ),
    "err_pin_required": (
        "PIN nötig: die Startseite öffnen und die PIN eingeben, die beim Server angezeigt wird.",
        "PIN required: open the start page and enter the PIN shown where the server runs.",
        "Hace falta el PIN: abrí la página de inicio e ingresá el PIN que muestra el servidor.",
    ),
    "err_bad_json": (
        "Die Anfrage ist kein gültiges JSON.",
        "The request body is not valid JSON.",
        "La solicitud no es JSON válido.",
    ),
    "err_send_sheet": (
        "{\"sheet\": {...}, \"stake\": \"0.50\", \"currency\": \"EUR\"} senden.",
        "Send {\"sheet\": {...}, \"stake\": \"0.50\", \"currency\": \"EUR\"}.",
        "Enviá {\"sheet\": {...}, \"stake\": \"0.50\", \"currency\": \"EUR\"}.",
    ),
    "err_currency": (
        "Währung {currency}: ein kurzes Kürzel wie EUR angeben.",
        "Currency {currency}: give a short code such as EUR.",
        "Moneda {currency}: indicá un código corto como EUR.",
    ),
    "err_players": (
        "Spieler: die Zahl der Spieler auf der Tabelle angeben (1-16).",
        "Players: give the number of players on the sheet (1-16).",
        "Jugadores: indicá la cantidad de jugadores de la planilla (1-16).",
    ),
    # The server's limits (web.limits, web.services, web.ledger).
    "err_body_over": (
        "Die Anfrage ist größer als {mb} MB: ein kleineres Foto senden.",
        "The request is larger than {mb} MB; send a smaller photo.",
        "La solicitud supera los {mb} MB: enviá una foto más chica.",
    ),
    "err_body_slow": (
        "Die Daten kamen zu langsam an: noch einmal senden, am besten im WLAN.",
        "The upload arrived too slowly; send it again, best over Wi-Fi.",
        "Los datos llegaron demasiado lento: enviá de nuevo, mejor por wifi.",
    ),
    "err_form_over": (
        "Das Formular ist größer als {kb} kB oder enthält eine Datei: das Formular der App "
        "verwenden.",
        "The form is larger than {kb} kB or carries a file; use the app's own form.",
        "El formulario supera los {kb} kB o lleva un archivo: usá el formulario de la app.",
    ),
    "err_json_over": (
        "Die Anfrage ist größer als {kb} kB: eine Tabelle auf einmal senden.",
        "The request body is larger than {kb} kB; send one sheet.",
        "La solicitud supera los {kb} kB: enviá una planilla a la vez.",
    ),
    "err_pixels_over": (
        "Das Foto ist {width}x{height} groß: {mp} Millionen Pixel, mehr als die {limit} "
        "Millionen, die ein Scan braucht. Das JPEG der Kamera oder ein kleineres Foto senden.",
        "The photo is {width}x{height}: {mp} million pixels, more than the {limit} million a "
        "scan needs; send the camera's JPEG or a smaller photo.",
        "La foto mide {width}x{height}: {mp} millones de píxeles, más que los {limit} "
        "millones que necesita un escaneo. Enviá el JPEG de la cámara o una foto más chica.",
    ),
    "err_photo_small": (
        "Das Foto ({width}x{height} Pixel) ist zu klein oder zu schmal für eine Spieltabelle: "
        "das Foto der Kamera senden, kein Vorschaubild.",
        "The photo ({width}x{height} px) is too small or too narrow to show a score sheet; "
        "send the camera's photo, not a thumbnail.",
        "La foto ({width}x{height} px) es demasiado chica o angosta para una planilla: "
        "enviá la foto de la cámara, no una miniatura.",
    ),
    "err_names_differ": (
        "Zwei Spieler heißen {name}: die Namen müssen sich unterscheiden (etwa {name} B.), "
        "damit die Kassa sie auseinanderhält.",
        "Two players are called {name}; names must differ (say {name} B.) so the ledger "
        "can tell them apart.",
        "Dos jugadores se llaman {name}: los nombres deben ser distintos (por ejemplo "
        "{name} B.) para que la caja los distinga.",
    ),
    "err_name_long": (
        "Der Name {name} ist zu lang: höchstens {n} Zeichen.",
        "The name {name} is too long; at most {n} characters.",
        "El nombre {name} es demasiado largo: como máximo {n} caracteres.",
    ),
    "err_ledger_gone": (
        "Die Kassa-Datei fehlt (gelöscht, während der Server lief): sie zurückholen oder den "
        "Server neu starten.",
        "The ledger file is gone (deleted while the server runs); restore it or restart "
        "the server.",
        "Falta el archivo de la caja (se borró con el servidor en marcha): recuperalo o "
        "reiniciá el servidor.",
    ),
    "err_ledger_broken": (
        "Die Kassa-Datei ist nicht lesbar oder nicht schreibbar ({reason}): sie am Server "
        "prüfen; nichts wurde geändert.",
        "The ledger file cannot be read or written ({reason}); check it on the server; "
        "nothing was changed.",
        "El archivo de la caja no se puede leer ni escribir ({reason}): revisalo en el "
        "servidor; no se cambió nada.",
    ),
}


# Texts with a number in them, in each language's plural forms (CLDR categories "one" and
# "other"; de, en and es need no more for whole numbers): (de, en, es), each (one, other).
_PLURAL: dict[str, tuple[tuple[str, str], tuple[str, str], tuple[str, str]]] = {
    "n_seconds": (
        ("{n} Sekunde", "{n} Sekunden"),
        ("{n} second", "{n} seconds"),
        ("{n} segundo", "{n} segundos"),
    ),
    "n_minutes": (
        ("{n} Minute", "{n} Minuten"),
        ("{n} minute", "{n} minutes"),
        ("{n} minuto", "{n} minutos"),
    ),
    "payout_hangs": (
        ("Auszahlung hängt an {n} Feld", "Auszahlung hängt an {n} Feldern"),
        ("Payout depends on {n} cell", "Payout depends on {n} cells"),
        ("El pago depende de {n} casilla", "El pago depende de {n} casillas"),
    ),
    "payout_rest": (
        ("{n} weiteres unsicheres Feld: die Auszahlung hängt nicht daran; prüfen ist "
         "freiwillig.",
         "{n} weitere unsichere Felder: die Auszahlung hängt nicht an ihnen; prüfen ist "
         "freiwillig."),
        ("{n} other unsure cell: the payout does not hang on it; checking it is optional.",
         "{n} other unsure cells: the payout does not hang on them; checking them is "
         "optional."),
        ("{n} casilla dudosa más: el pago no depende de ella; revisarla es opcional.",
         "{n} casillas dudosas más: el pago no depende de ellas; revisarlas es opcional."),
    ),
    "provisional_amounts": (
        ("Betrag (vorläufig: {n} Feld offen)", "Betrag (vorläufig: {n} Felder offen)"),
        ("Amount (provisional: {n} cell open)", "Amount (provisional: {n} cells open)"),
        ("Importe (provisorio: {n} casilla vacía)", "Importe (provisorio: {n} casillas vacías)"),
    ),
    "incomplete": (
        ("{n} Feld noch offen", "{n} Felder noch offen"),
        ("{n} cell still open", "{n} cells still open"),
        ("{n} casilla todavía vacía", "{n} casillas todavía vacías"),
    ),
    "print_done": (
        ("PDF heruntergeladen: {n} Spieltabelle, Nr. {first}.",
         "PDF heruntergeladen: {n} Spieltabellen, Nr. {first} bis {last}."),
        ("PDF downloaded: {n} score sheet, no. {first}.",
         "PDF downloaded: {n} score sheets, no. {first} to {last}."),
        ("PDF descargado: {n} planilla, n.º {first}.",
         "PDF descargado: {n} planillas, n.º {first} a {last}."),
    ),
    "review_answered": (
        ("{n} Feld geprüft", "{n} Felder geprüft"),
        ("{n} cell checked", "{n} cells checked"),
        ("{n} casilla revisada", "{n} casillas revisadas"),
    ),
}


def translate_n(key: str, lang: str, n: int, **params: object) -> str:
    """A text with the number `n` in it, in the plural form `n` takes in `lang` (CLDR's
    category by Babel; a category the catalog has no text for, such as Spanish "many",
    takes the "other" text)."""
    forms = _PLURAL[key][LANGS.index(lang) if lang in LANGS else 0]
    return forms[0 if plural_category(n, lang) == "one" else 1].format(n=n, **params)


def wait_text(seconds: float, lang: str) -> str:
    """How long to wait, rounded up: "2 Sekunden", "4 Minuten"."""
    whole = max(1, math.ceil(seconds))
    if whole < 120:
        return translate_n("n_seconds", lang, whole)
    return translate_n("n_minutes", lang, math.ceil(whole / 60))


def translate(key: str, lang: str, **params: object) -> str:
    text = _TEXT[key][LANGS.index(lang) if lang in LANGS else 0]
    return text.format(**params) if params else text


def catalog(lang: str) -> dict[str, str]:
    """All strings for one language (handed to the page's JavaScript); a plural text as
    key_one and key_other (the page picks one with Intl.PluralRules)."""
    texts = {k: translate(k, lang) for k in _TEXT}
    i = LANGS.index(lang) if lang in LANGS else 0
    for key, forms in _PLURAL.items():
        texts[f"{key}_one"], texts[f"{key}_other"] = forms[i]
    return texts


def keys() -> tuple[str, ...]:
    return tuple(_TEXT)


def pick_lang(requested: str | None) -> str:
    return requested if requested in LANGS else DEFAULT_LANG
