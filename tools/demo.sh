#!/usr/bin/env bash
# Set up (tools/setup.sh) and run the main job end to end:
# print a blank block, scan a sample photo of a filled sheet, show the payout.
set -euo pipefail
cd "$(dirname "$0")/.."
ESCALERO_BROWSER=0 bash tools/setup.sh
mkdir -p out
esc=.venv/bin/escalero

echo
echo "== 1. Print a block: 3 players, 5 pages -> out/block.pdf (layout -> out/layout.json)"
$esc sheet --names "Anna,Bert,Carla" --pages 5 -o out/block.pdf --layout-json out/layout.json

photo=${1:-samples/photos/02-3-players.jpg}
echo
echo "== 2. Scan a photo of a filled sheet: $photo (debug overlay -> out/debug/)"
# Exit code 0 even when cells are flagged for review; the table marks them with '?'.
$esc scan "$photo" --debug out/debug --stake 0.50 --currency EUR

echo
echo "== 3. Settle the scanned sheet as JSON (what the web front end and scripts use)"
$esc scan "$photo" --json --lang de > out/scanned.json
$esc settle out/scanned.json --stake 0.50 --currency EUR
echo
echo "Done. Open out/block.pdf to print, out/debug/ to see what the scanner found."
