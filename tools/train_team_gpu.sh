#!/usr/bin/env bash
# Fine-tune both networks of the reader's team on one shared training set, at once, on a
# lent GPU (or the CPU: DEVICE=cpu), then calibrate the team. Writes into OUT (default
# /tmp/team): digits.onnx, digits-2.onnx, each member's own calibration (member-N.json),
# train.log; with TEAM_CALIB=1 also the team's calibration on MNIST-pool cells
# (digits-calib-mnist.json) and on cells with the real variety (digits-calib-real.json),
# on the committed team's calibration cells (60,000, --seed 6, --spill 0.5).
#
#   CELLS=500000 MINUTES=4 THREADS=16 BATCH=512 TEAM_CALIB=0 bash tools/train_team_gpu.sh
#
# Runs without an installed package: the escalero package is linked together under a
# scratch folder, as `pip install -e .` maps it (pyproject.toml's package-dir).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
OUT=${OUT:-/tmp/team}
CELLS=${CELLS:-400000} MINUTES=${MINUTES:-4} THREADS=${THREADS:-16} DEVICE=${DEVICE:-cuda}
CALIB=${CALIB:-60000} PY=${PY:-python3} SEED=${SEED:-61} BATCH=${BATCH:-128}
MEMBER_CALIB=${MEMBER_CALIB:-4000} TEAM_CALIB=${TEAM_CALIB:-1}
export PYTHONUNBUFFERED=1
PKG=$(mktemp -d)
mkdir -p "$PKG/escalero" "$PKG/tools" "$OUT"
for f in escalero/*; do ln -s "$REPO/$f" "$PKG/escalero/"; done
for d in scan sheets scoring samples web; do ln -s "$REPO/$d" "$PKG/escalero/$d"; done
cp tools/train_digits.py tools/features_output.py "$PKG/tools/"
run() { "$PY" "$PKG/tools/train_digits.py" --threads "$THREADS" --seed "$SEED" \
    --train "$CELLS" --real --source all --spill 0.5 --faint 0.15 --narrow 0.35 \
    --elastic 0.2 --lr 1e-3 --calib-source mnist --cache /tmp/escalero-team.npz "$@"; }
{
    echo "== cells $CELLS, $MINUTES min per network on $DEVICE"
    "$PY" "$PKG/tools/train_digits.py" --quick --device "$DEVICE" --threads "$THREADS" \
        --source all --real \
        --out /tmp/team-smoke --cache /tmp/team-smoke.npz > /tmp/team-smoke.log 2>&1 \
        || { cat /tmp/team-smoke.log; exit 1; }
    run --prepare
    if [ -n "${DEADLINE_S:-}" ]; then  # a lease's limit: train for what is left of it
        MINUTES=$("$PY" -c "print(round(max(0.5, min($MINUTES, ($DEADLINE_S - $SECONDS) / 60 - 0.8)), 2))")
        echo "== $SECONDS s used; training $MINUTES min per network"
    fi
    # (Both runs write the cache's warm-start .pt beside it; the members are their exports.)
    train=(--device "$DEVICE" --minutes "$MINUTES" --batch "$BATCH" --calib "$MEMBER_CALIB")
    run "${train[@]}" --init scan/models/digits.onnx \
        --out /tmp/team-1 > /tmp/team-1.log 2>&1 &
    one=$!
    run "${train[@]}" --init scan/models/digits-2.onnx \
        --out /tmp/team-2 > /tmp/team-2.log 2>&1 &
    two=$!
    wait $one; wait $two
    cat /tmp/team-1.log /tmp/team-2.log
    cp /tmp/team-1/digits.onnx "$OUT/digits.onnx"
    cp /tmp/team-2/digits.onnx "$OUT/digits-2.onnx"
    cp /tmp/team-1/digits.json "$OUT/member-1.json"
    cp /tmp/team-2/digits.json "$OUT/member-2.json"
    if [ "$TEAM_CALIB" = 1 ]; then
        run --calib "$CALIB" --seed 6 --recalibrate --out "$OUT" --members "$OUT/digits.onnx" \
            "$OUT/digits-2.onnx"
        cp "$OUT/digits.json" "$OUT/digits-calib-mnist.json"
        run --calib "$CALIB" --seed 6 --recalibrate --calib-real --out "$OUT"
        cp "$OUT/digits.json" "$OUT/digits-calib-real.json"
    fi
} 2>&1 | tee "$OUT/train.log"
