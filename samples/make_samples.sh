#!/usr/bin/env bash
# Regenerate the committed sample photos in samples/photos/ (see samples/README.md).
# Evaluation writers only; the output depends on samples/ and sheets/ code as committed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
OUT=${OUT:-samples/photos}
mk() { "$PY" -m samples.make_photos --n 1 --split eval --out "$OUT" "$@"; }
mk --name 01-easy-2-players        --seed 1  --level mild --game escalero --players 2 --variant strasse-25 --megapixels 3 --rotation 2 --tilt 4 --quality 85
mk --name 02-3-players             --seed 2  --level mild --game escalero --players 3 --megapixels 3 --rotation -5 --quality 80
mk --name 03-4-players-pairs       --seed 3  --level mild --game escalero --players 4 --pairs --megapixels 3 --rotation 4 --quality 80
mk --name 04-generala-4-players    --seed 4  --level mild --game generala --players 4 --megapixels 3 --rotation -3 --quality 80
mk --name 05-variant-doppel-grande --seed 5  --level mild --game escalero --players 2 --variant doppel-grande --variant weights-123 --megapixels 3 --quality 80
mk --name 06-upside-down           --seed 6  --level mild --game escalero --players 2 --megapixels 3 --rotation 182 --quality 80
mk --name 07-sideways              --seed 7  --level mild --game escalero --players 3 --megapixels 3 --rotation 88 --quality 80
mk --name 08-12mp                  --seed 8  --level mild --game escalero --players 2 --megapixels 12 --rotation 3 --quality 75
mk --name 09-harsh                 --seed 15 --level harsh --game escalero --players 2 --megapixels 3 --quality 75
mk --name 10-harsh-generala        --seed 11 --level harsh --game generala --players 3 --megapixels 3 --quality 70
mk --name 11-finger-on-marker      --seed 11 --level mild --game escalero --players 2 --megapixels 3 --cover-marker 1 --quality 80
mk --name 12-unfinished-illegal    --seed 12 --level mild --game escalero --players 2 --rounds 18 --illegal 2 --megapixels 3 --quality 80
mk --name 13-tiny-far-away         --seed 13 --level mild --game escalero --players 2 --megapixels 4 --tiny --quality 80
mk --name 14-no-sheet              --seed 14 --level mild --megapixels 2 --no-sheet --quality 80
mk --name 15-flatbed-scan          --seed 17 --level harsh --game escalero --players 3 --flatbed --quality 80
mk --name 16-upload-red-ink        --seed 21 --level harsh --game escalero --players 2 --pen ballpoint-red --megapixels 2.4
mk --name 17-pub-grid-faint         --seed 37 --level pub --game escalero --players 2
mk --name 19-pub-stray-mark         --seed 9600000 --start 87 --level pub --players 2
# Sheets this project did not print (samples.foreign): a bought block, tables ruled by hand.
fx() { "$PY" -m samples.foreign --n 1 --megapixels 3 --out "$OUT/foreign" "$@"; }
fx --name 18-foreign-block         --seed 3 --kind block
fx --name 19-foreign-hand          --seed 2 --kind hand
fx --name 20-foreign-hand-squared  --seed 3 --kind hand
fx --name 21-foreign-hand-sideways  --seed 951000 --start 3 --kind hand
