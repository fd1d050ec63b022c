"""The text catalog (escalero/locale, domain `escalero`), kept with Babel.

    python tools/catalog.py           extract the messages from the code (babel.cfg), merge
                                      them into each language's .po, compile the .mo files
    python tools/catalog.py compile   only compile, after translating in a .po

A new message arrives untranslated in de and es (tests/test_i18n.py fails until it has its
German and Spanish text); the English catalog stays empty, English being the msgids.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from escalero.i18n import DOMAIN, LANGUAGES
from escalero.i18n import LOCALE_DIR as LOCALE

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("escalero", "scan", "scoring", "sheets", "web")  # the folders babel.cfg maps


def po_path(lang: str, locale: Path = LOCALE) -> Path:
    return locale / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    """Every message the code marks (gettext, ngettext, pgettext, N_), by file, no line:
    line numbers would change the .po files with every edit of the code."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    template = Catalog(project=DOMAIN, domain=DOMAIN)
    for filename, line, message, comments, context in extract_from_dir(
            ROOT, method_map, options_map,
            directory_filter=lambda d: Path(d).relative_to(ROOT).parts[0] in PACKAGES):
        template.add(message, None, [(filename, line)], auto_comments=comments,
                     context=context)
    return template


def read(lang: str, locale: Path = LOCALE) -> Catalog:
    with open(po_path(lang, locale), "rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def update(template: Catalog) -> None:
    """Each language's .po gets the template's messages; those gone from the code go."""
    for lang in LANGUAGES:
        path = po_path(lang)
        catalog = read(lang) if path.exists() else Catalog(
            locale=lang, domain=DOMAIN, project=DOMAIN, version=None, fuzzy=False,
            copyright_holder="the escalero authors")
        catalog.update(template, no_fuzzy_matching=True)
        out = io.BytesIO()
        write_po(out, catalog, width=0, sort_by_file=True, ignore_obsolete=True,
                 include_lineno=False)
        if not path.exists() or _undated(out.getvalue()) != _undated(path.read_bytes()):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(out.getvalue())


def _undated(po: bytes) -> bytes:
    """A .po file without its header's extraction time: an unchanged catalog is not
    rewritten just because it was extracted again."""
    return re.sub(rb'"POT-Creation-Date: [^"]*"\n', b"", po)


def compile_catalogs(source: Path = LOCALE, target: Path = LOCALE) -> None:
    """Each .po under `source` to its .mo under `target`."""
    for lang in LANGUAGES:
        mo = po_path(lang, target).with_suffix(".mo")
        mo.parent.mkdir(parents=True, exist_ok=True)
        with open(mo, "wb") as f:
            write_mo(f, read(lang, source))


def main(argv: list[str]) -> int:
    if argv[:1] != ["compile"]:
        update(extract())
    compile_catalogs()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
