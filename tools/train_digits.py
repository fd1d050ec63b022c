"""Train the cell-reading CNN and export it to scan/models/digits.onnx (+ digits.json).

    .venv/bin/python tools/train_digits.py          # the committed model (docs/digit-model.md)
    .venv/bin/python tools/train_digits.py --quick  # a smoke run

Needs torch and onnx (`pip install -e .[train]`); nothing at run time does. Data: synthetic
cell crops (samples/cell_crops.py) written by writers from the "train" glyph pool of
samples/data/digits.png (MNIST). Temperature and the accept threshold are fitted on crops by
"eval"-pool writers, whose glyphs the network never saw.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from escalero.samples.cell_crops import (  # noqa: E402
    CELLS_VERSION,
    HANDS_VARIETY,
    ONES_VARIETY,
    REAL_VARIETY,
    CellVariety,
    narrow_box,
    random_entry,
    real_pen,
    scaled,
    synth_cell,
    training_entry,
)
from escalero.samples.handwriting import SOURCES, make_writer  # noqa: E402
from escalero.scan.digit_model import (  # noqa: E402
    HEAD_OFFSET,
    INPUT_H,
    INPUT_W,
    N_OUT,
    PREPROCESS_VERSION,
    decode,
    fit_accept,
    members,
    preprocess,
    run_members,
    score_cell,
)
from torch import nn  # noqa: E402

from tools.features_output import add_features_output  # noqa: E402

Job = tuple[int, str, int, float, bool, float, str, float, float, float, CellVariety | None]


def _make_chunk(job: Job) -> tuple[np.ndarray, list, list]:
    n, split, seed, harsh_share, row_aware, spill, source, faint, narrow, elastic, variety = job
    rng = np.random.default_rng(seed)
    x = np.zeros((n, INPUT_H, INPUT_W), np.float32)
    entries: list = []
    alloweds: list = []
    writer = make_writer(rng, split, source=source)
    for i in range(n):
        if i % 25 == 0:
            writer = make_writer(rng, split, source=source)
            if elastic > 0:  # (drawn only when asked for, as narrow below)
                writer = replace(writer, elastic=float(rng.uniform(0.0, elastic)))
            if variety is not None and rng.random() < variety.real_pen:
                writer = real_pen(writer, rng)
            if variety is not None and variety.continental > 0 \
                    and rng.random() < variety.continental:
                writer = replace(writer, continental=True)
                if variety.long_upstroke > 0 and rng.random() < variety.long_upstroke:
                    writer = replace(writer, long_upstroke=True)
        if row_aware:
            entry, allowed = random_entry(rng)
        else:
            entry, allowed = training_entry(rng), None
        # (Drawn only when asked for: the earlier recipes' cells stay the same.)
        box = narrow_box(rng) if narrow > 0 and rng.random() < narrow else None
        sample = synth_cell(rng, writer, entry, harsh=rng.random() < harsh_share, spill=spill,
                            faint=faint, box_size=box, variety=variety)
        x[i] = preprocess(sample.image)
        entries.append(entry)
        alloweds.append(allowed)
    return x, entries, alloweds


def make_set(n: int, split: str, seed: int, harsh_share: float, row_aware: bool,
             workers: int = 1, spill: float = 0.0, source: str = "mnist", faint: float = 0.0,
             narrow: float = 0.0, elastic: float = 0.0, variety: CellVariety | None = None
             ) -> tuple[np.ndarray, list, list]:
    """n preprocessed crops, their entries and their rows' allowed values (chunked, so
    the result does not depend on the number of workers)."""
    size = 2000
    jobs: list[Job] = [(min(size, n - s), split, seed * 100003 + s, harsh_share, row_aware,
                        spill, source, faint, narrow, elastic, variety)
                       for s in range(0, n, size)]
    if workers > 1:
        with multiprocessing.Pool(workers) as pool:
            parts = pool.map(_make_chunk, jobs)
    else:
        parts = [_make_chunk(j) for j in jobs]
    return (np.concatenate([p[0] for p in parts]), sum((p[1] for p in parts), []),
            sum((p[2] for p in parts), []))


def targets(entries: list) -> np.ndarray:
    """Per cell: kind, length index (-1 if none), digits 0-2 (-1 if none)."""
    t = np.full((len(entries), 5), -1, np.int64)
    for i, e in enumerate(entries):
        if e is None:
            t[i, 0] = 0
        elif e == "x" or e == 0:  # a written 0 is a strike
            t[i, 0] = 1
        else:
            s = str(e)
            t[i, 0] = 2
            t[i, 1] = len(s) - 1
            t[i, 2:2 + len(s)] = [int(c) for c in s]
    return t


def block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class CellNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            # One conv at full size: it is the costly one, and strokes are simple there.
            *block(1, 16), nn.MaxPool2d(2),
            *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
            *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
        )
        flat = 64 * (INPUT_H // 8) * (INPUT_W // 8)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(flat, 128), nn.ReLU(),
                                  nn.Dropout(0.2), nn.Linear(128, N_OUT))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def init_from_onnx(model: CellNet, onnx_path: Path, x: np.ndarray) -> None:
    """Warm start from an exported network, whose batch norms the exporter folded into the
    convolutions: each conv takes the folded weights, and its batch norm is set to pass the
    folded output through unchanged on a batch of the training cells (gamma = the batch's
    spread, beta = its mean + the folded bias), so training resumes where the export ended."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(onnx_path)).graph
    init = {i.name: np.array(numpy_helper.to_array(i)) for i in graph.initializer}
    folded = iter([(init[n.input[1]], init[n.input[2]]) for n in graph.node
                   if n.op_type == "Conv"])
    h, bias = torch.from_numpy(x[:512, None]), torch.zeros(0)
    with torch.no_grad():
        for layer in model.features:  # forward through the cells, layer by layer
            if isinstance(layer, nn.Conv2d):
                w, b = next(folded)
                layer.weight.copy_(torch.from_numpy(w))
                bias = torch.from_numpy(b)
            elif isinstance(layer, nn.BatchNorm2d):
                mu, var = h.mean(dim=(0, 2, 3)), h.var(dim=(0, 2, 3), unbiased=False)
                layer.running_mean.copy_(mu)
                layer.running_var.copy_(var)
                layer.weight.copy_(torch.sqrt(var + layer.eps))
                layer.bias.copy_(mu + bias)
                layer.eval()  # normalise with the statistics just set
            h = layer(h)
        if next(folded, None) is not None:
            raise ValueError(f"{onnx_path} has more convolutions than CellNet")
        for index in (1, 4):
            lin = model.head[index]
            lin.weight.copy_(torch.from_numpy(init[f"head.{index}.weight"]))
            lin.bias.copy_(torch.from_numpy(init[f"head.{index}.bias"]))


def loss_fn(out: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    ce = nn.functional.cross_entropy
    loss = ce(out[:, 0:3], t[:, 0])
    num = t[:, 0] == 2
    if num.any():
        o, tt = out[num], t[num]
        loss = loss + ce(o[:, 3:6], tt[:, 1])
        for length, first in HEAD_OFFSET.items():
            sel = tt[:, 1] == length - 1
            if sel.any():
                for i in range(length):
                    a = first + 10 * i
                    loss = loss + ce(o[sel][:, a:a + 10], tt[sel][:, 2 + i]) * sel.float().mean()
    return loss


# The output's softmax groups (as digit_model.score_cells reads them): kind, length and
# the six digit heads of ten.
HEAD_GROUPS = ((0, 3), (3, 6)) + tuple((a, a + 10) for a in range(6, N_OUT, 10))


def distil_loss(out: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
    """KL(teacher || student) summed over the output's softmax groups: the student is held
    to the teacher's odds as well as to the truth, so that a fine-tune on new shapes need
    not drift on the cells the team already reads (each plain fine-tune refitted a higher
    temperature and accept threshold; what --distil gave: docs/digit-model.md, Retrain)."""
    loss = out.new_zeros(())
    for a, b in HEAD_GROUPS:
        p = torch.softmax(teacher[:, a:b], dim=1)
        log_q = torch.log_softmax(out[:, a:b], dim=1)
        loss = loss + (p * (torch.log(p.clamp_min(1e-12)) - log_q)).sum(dim=1).mean()
    return loss


def predict(model: nn.Module, x: np.ndarray) -> np.ndarray:
    model.eval()
    device = next(model.parameters()).device
    with torch.no_grad():
        return torch.cat([model(torch.from_numpy(x[i:i + 512, None]).to(device)).cpu()
                          for i in range(0, len(x), 512)]).numpy()


def truth_of(entry: object) -> object:
    return "x" if entry == 0 else entry


def fit_calibration(logits: np.ndarray, entries: list, alloweds: list, target: float,
                    target_total: float | None = None) -> dict:
    """Temperature by NLL of the true reading, then the lowest threshold whose accepted
    readings are at least `target` right."""
    best = (np.inf, 1.0)
    for temp in np.arange(0.6, 3.01, 0.1):
        nll = 0.0
        for z, e, a in zip(logits, entries, alloweds, strict=True):
            ranked = dict(decode(score_cell(z, temp), a).ranked)
            nll -= np.log(max(ranked.get(truth_of(e), 0.0), 1e-9))
        best = min(best, (nll, float(temp)))
    temp = best[1]
    conf, right, numeric_total = [], [], []
    for z, e, a in zip(logits, entries, alloweds, strict=True):
        reading, p = decode(score_cell(z, temp), a).ranked[0]
        conf.append(p)
        right.append(reading == truth_of(e))
        numeric_total.append(a is None and isinstance(reading, int))
    conf_a, right_a = np.array(conf), np.array(right)
    totals = np.array(numeric_total)
    # Written totals read as numbers get their own threshold: they decode over 0-999 with
    # no row to help, and a wrong total only misleads the cross-check. Every other reading
    # (row cells, an empty or struck total) is accepted at `accept`, as Calibration.threshold
    # applies them.
    target_total = target if target_total is None else target_total
    out: dict = {"temperature": temp, "target": target, "target_total": target_total}
    for key, sel, goal in (("accept", ~totals, target), ("accept_total", totals, target_total)):
        accept = fit_accept(conf_a[sel], right_a[sel], goal)
        acc = conf_a[sel] >= accept
        out[key] = accept
        out[f"calibration_{key}"] = {
            "cells": int(sel.sum()), "accepted_share": float(acc.mean()),
            "accepted_accuracy": float(right_a[sel][acc].mean()) if acc.any() else None,
            "accuracy": float(right_a[sel].mean())}
    return out


def recalibrate(args: argparse.Namespace) -> None:
    """Refit temperature and thresholds of exported models (cv2.dnn, no training).

    With --members, the listed networks become OUT's team: copied in as digits.onnx,
    digits-2.onnx, ..., listed in digits.json, and calibrated on their mean logits."""
    onnx_path = args.out / "digits.onnx"
    meta_path = args.out / "digits.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    if args.members:
        args.out.mkdir(parents=True, exist_ok=True)
        names = ["digits.onnx" if k == 0 else f"digits-{k + 1}.onnx"
                 for k in range(len(args.members))]
        for src, name in zip(args.members, names, strict=True):
            if src.resolve() != (args.out / name).resolve():
                shutil.copy(src, args.out / name)
        meta["members"] = names
        meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    xc, ec, ac = make_set(args.calib, "eval", args.seed + 1000, 0.5, row_aware=True,
                          workers=args.threads, spill=args.spill / 2, source=args.calib_source,
                          faint=args.faint / 2,
                          variety=REAL_VARIETY if args.calib_real else None)
    calib = fit_calibration(run_members(xc, members(onnx_path)), ec, ac, args.target,
                            args.target_total)
    meta = {k: v for k, v in meta.items() if not k.startswith("calibration")}
    meta.update(calib, calib_seed=args.seed + 1000, calib_source=args.calib_source,
                calib_real=bool(args.calib_real))
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(calib, indent=1))


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=int, default=50000, help="synthetic training cells")
    ap.add_argument("--calib", type=int, default=16000,
                    help="eval-pool cells for calibration")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--minutes", type=float, default=0,
                    help="train for this long instead of --epochs (a shared machine)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target", type=float, default=0.9998,
                    help="accuracy of accepted cells (a sheet has 60-90 cells)")
    ap.add_argument("--target-total", type=float, default=0.9998,
                    help="the same for written totals (the scanner checks them against sums)")
    ap.add_argument("--out", type=Path, default=ROOT / "scan" / "models")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/escalero-digits-train.npz"))
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--batch", type=int, default=128, help="cells per training step")
    ap.add_argument("--init", type=Path,
                    help="warm start from a saved state dict (.pt) or an exported .onnx")
    ap.add_argument("--faint", type=float, default=0.0,
                    help="share of numbers whose first (or last) digit is written faintly")
    ap.add_argument("--narrow", type=float, default=0.0,
                    help="share of cells in narrow boxes (four and six sides: 11.5-13.5 mm)")
    ap.add_argument("--elastic", type=float, default=0.0,
                    help="largest elastic warp of training digits (fraction of their height)")
    ap.add_argument("--spill", type=float, default=0.0,
                    help="share of cells written large and off-centre, over the lines")
    ap.add_argument("--source", choices=SOURCES, default="mnist",
                    help="training writers' glyphs: MNIST, pen strokes or mixed (per writer)")
    ap.add_argument("--calib-source", choices=SOURCES, default="mnist",
                    help="calibration writers' glyphs (eval pools)")
    ap.add_argument("--real", action="store_true",
                    help="cells with what real sheets show (samples.cell_crops.REAL_VARIETY): "
                         "pen models, dark grids, boxes 2 mm off, touching digits, close "
                         "neighbours, 0 as a strike; with --calib-real the calibration too")
    ap.add_argument("--hands", action="store_true",
                    help="cells with how real hands fill them (samples.cell_crops."
                         "HANDS_VARIETY): 1s with a long upstroke and 7s with a crossbar in "
                         "every source, close neighbours, touching digits, 0 as a strike")
    ap.add_argument("--hands-share", type=float, default=1.0,
                    help="with --hands: each of HANDS_VARIETY's shares times this (0-1), a "
                         "lighter dose beside the generator's own cells")
    ap.add_argument("--ones", action="store_true",
                    help="cells with the Austrian 1 and 7 alone (samples.cell_crops."
                         "ONES_VARIETY): half of the 1s with a long, steep upstroke")
    ap.add_argument("--distil", type=Path, nargs="+",
                    help="networks (.onnx) whose mean logits the student also learns (KL, "
                         "--distil-weight): a fine-tune keeps the team's odds")
    ap.add_argument("--distil-weight", type=float, default=1.0,
                    help="with --distil: the KL term's weight beside the truth's loss")
    ap.add_argument("--calib-real", action="store_true",
                    help="calibration cells with REAL_VARIETY as well")
    ap.add_argument("--quick", action="store_true", help="small smoke run")
    ap.add_argument("--device", default="cpu",
                    help="torch device to train on (cuda where a GPU is lent: only faster)")
    ap.add_argument("--prepare", action="store_true",
                    help="only make the training set into --cache (then train several "
                         "networks on it at once)")
    ap.add_argument("--recalibrate", action="store_true",
                    help="only refit calibration of OUT/digits.onnx (cv2.dnn reads the "
                         "networks; the script itself still imports torch)")
    ap.add_argument("--members", type=Path, nargs="+",
                    help="with --recalibrate: read these networks together (mean logits)")
    return ap


def _variety(args: argparse.Namespace) -> CellVariety | None:
    """The training cells' variety: --real, --hands, --ones, or none (the generator's
    own)."""
    if args.real + args.hands + args.ones > 1:
        raise SystemExit("train_digits: --real, --hands and --ones are varieties; pick one")
    if args.hands and not 0.0 < args.hands_share <= 1.0:
        raise SystemExit("train_digits: --hands-share is a share in (0, 1]")
    hands = scaled(HANDS_VARIETY, args.hands_share)
    if args.ones:
        return ONES_VARIETY
    return REAL_VARIETY if args.real else hands if args.hands else None


def _training_set(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    """The synthetic training cells and their targets (cached in --cache)."""
    variety = _variety(args)
    key = f"{args.train}-{args.seed}-{args.spill}-{args.faint}" + (
        "" if args.source == "mnist" else f"-{args.source}") + (
        f"-narrow{args.narrow}" if args.narrow else "") + (
        f"-elastic{args.elastic}" if args.elastic else "") + (
        f"-{variety.key()}" if variety is not None else "") + (
        f"-cells{CELLS_VERSION}-pre{PREPROCESS_VERSION}")
    data = np.load(args.cache, allow_pickle=True) if args.cache.exists() else None
    if data is not None and data["key"] == key:
        x, t = data["x"], data["t"]
    else:
        x, entries, _ = make_set(args.train, "train", args.seed, 0.35, row_aware=False,
                                 workers=args.threads, spill=args.spill, source=args.source,
                                 faint=args.faint, narrow=args.narrow, elastic=args.elastic,
                                 variety=variety)
        t = targets(entries)
        np.savez(args.cache, x=x, t=t, key=key)
    return x, t


def _train(model: CellNet, x: np.ndarray, t: np.ndarray, args: argparse.Namespace,
           t0: float, teacher: np.ndarray | None = None) -> tuple[int, int]:
    """Train in place (AdamW, warm-up then cosine); returns (epochs, steps) run."""
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch, max_lr = args.batch, args.lr
    steps = args.epochs * (len(x) // batch)
    # With --minutes the schedule runs on the clock instead (the machine is shared, so
    # epochs take an unknown time): warm up, then cosine down, stop when time is up.
    budget = args.minutes * 60 if args.minutes else None
    device = next(model.parameters()).device
    xt, tt = torch.from_numpy(x).to(device), torch.from_numpy(t).to(device)
    zt = None if teacher is None else torch.from_numpy(teacher.astype(np.float32)).to(device)
    rng = np.random.default_rng(args.seed)
    t_train, step, epoch, done = time.time(), 0, 0, False
    while not done:
        model.train()
        perm = torch.from_numpy(rng.permutation(len(x))).to(device)
        total, n = 0.0, 0
        for i in range(len(x) // batch):
            frac = (time.time() - t_train) / budget if budget else step / max(steps, 1)
            if frac >= 1.0:
                done = True
                break
            lr = max_lr * (frac / 0.05 if frac < 0.05 else
                           0.5 * (1 + np.cos(np.pi * (frac - 0.05) / 0.95)) + 0.003)
            for group in opt.param_groups:
                group["lr"] = lr
            idx = perm[i * batch:(i + 1) * batch]
            xb = xt[idx, None]
            # Cheap extra variety: ink strength and a shift of up to 2 px.
            xb = xb * torch.empty(len(idx), 1, 1, 1, device=device).uniform_(0.7, 1.0)
            dy, dx = (int(v) for v in rng.integers(-2, 3, 2))
            xb = torch.roll(xb, shifts=(dy, dx), dims=(2, 3))
            out = model(xb)
            loss = loss_fn(out, tt[idx])
            if zt is not None:
                loss = loss + args.distil_weight * distil_loss(out, zt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total, n, step = total + float(loss.detach()), n + 1, step + 1
        epoch += 1
        print(f"epoch {epoch} ({step} steps) loss {total / max(n, 1):.4f} "
              f"({time.time() - t0:.0f} s)", flush=True)
    return epoch, step


def _export(model: CellNet, xc: np.ndarray, args: argparse.Namespace) -> Path:
    """OUT/digits.onnx (with the features output) and a warm-start state dict; checks
    that cv2.dnn reads the export as torch does."""
    args.out.mkdir(parents=True, exist_ok=True)
    model = model.cpu()
    torch.save(model.state_dict(), args.cache.with_suffix(".pt"))  # for a warm start
    onnx_path = args.out / "digits.onnx"
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, INPUT_H, INPUT_W), str(onnx_path),
                      input_names=["cells"], output_names=["logits"],
                      dynamic_axes={"cells": {0: "n"}, "logits": {0: "n"}},
                      opset_version=13, dynamo=False)
    add_features_output(onnx_path)  # the penultimate layer, for scan/adapt.py
    import cv2  # the run-time path must agree with torch

    net = cv2.dnn.readNetFromONNX(str(onnx_path))
    net.setInput(xc[:16, None])
    diff = float(np.abs(net.forward().reshape(16, N_OUT) - predict(model, xc[:16])).max())
    print(f"cv2.dnn vs torch max difference {diff:.2e}")
    return onnx_path


def main() -> None:
    args = _parser().parse_args()
    if args.quick:
        args.train, args.calib, args.epochs = 3000, 500, 1
    if args.recalibrate:
        recalibrate(args)
        return
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    x, t = _training_set(args)
    print(f"training set {len(x)} cells ready after {time.time() - t0:.0f} s", flush=True)
    if args.prepare:
        return
    model = CellNet()
    if args.init and args.init.suffix == ".onnx":
        init_from_onnx(model, args.init, x)
    elif args.init:
        model.load_state_dict(torch.load(args.init))
    teacher = None
    if args.distil:
        teacher = run_members(x, args.distil)  # the team's mean logits
        print(f"teacher's logits ready after {time.time() - t0:.0f} s", flush=True)
    epoch, step = _train(model.to(args.device), x, t, args, t0, teacher)

    xc, ec, ac = make_set(args.calib, "eval", args.seed + 1000, 0.5, row_aware=True,
                          workers=args.threads, spill=args.spill / 2, source=args.calib_source,
                          faint=args.faint / 2,
                          variety=REAL_VARIETY if args.calib_real else None)
    calib = fit_calibration(predict(model, xc), ec, ac, args.target, args.target_total)
    print("calibration:", json.dumps(calib), flush=True)
    onnx_path = _export(model, xc, args)
    meta = {**calib, "calib_seed": args.seed + 1000, "calib_source": args.calib_source,
            "input": [INPUT_H, INPUT_W], "train_cells": int(len(x)), "source": args.source,
            "epochs": epoch, "steps": step, "seed": args.seed, "real": bool(args.real),
            "hands": bool(args.hands), "ones": bool(args.ones),
            "distil": [str(p) for p in args.distil or []], "calib_real": bool(args.calib_real),
            "train_seconds": round(time.time() - t0),
            "torch": torch.__version__}
    (args.out / "digits.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size // 1024} KiB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
