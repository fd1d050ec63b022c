// Scan page: send the photo (raw body), show the overlay and the sheet. The server says how
// sure the payout is and which unsure cells can change it; the review panel walks those
// cells one after another (each visited once per round), and every answer is settled again.
// The other unsure cells stay highlighted and can be checked, but nothing requires it.
"use strict";

const $ = (id) => document.getElementById(id);
let editor = null;
let settler = null;
let current = null;
let scan = null;        // the scanner's readings and the cells it asked about
let payout = null;      // the latest answer of the server: certain, confidence, cells
const skipped = new Set();  // cells passed over with "Weiter" in this round

function keyOf(item) { return `${item.side}/${item.column}/${item.row}`; }
function asList(k) { const [s, c, r] = k.split("/"); return [Number(s), Number(c), r]; }

function body() {
  const out = { sheet: editor.getSheet(), stake: $("stake").value, currency: $("currency").value };
  if (scan) {
    out.readings = scan.readings;
    out.asked = scan.asked.map(asList);
    out.answered = [...editor.edited].map(asList);
  }
  return out;
}

function changed() {
  settler.schedule(body());
  updateFlagNote();
}

// Cells still to ask: those the payout hangs on, in the server's order, not yet answered.
function deciding() {
  if (!payout) return [];
  return payout.cells.filter((c) => c.affects_payout && !editor.edited.has(keyOf(c)))
    .map(keyOf);
}

function updateFlagNote() {
  const note = $("flag-note");
  if (!payout) { note.hidden = editor.flaggedOpen() === 0; return; }
  const ask = deciding();
  const rest = editor.openFlags().filter((k) => !ask.includes(k)).length;
  let text;
  if (!payout.finished) text = T.payout_unfinished;
  else if (payout.certain) text = `${T.payout_sure} (${percent(payout.confidence)})`;
  else if (ask.length) text = T.payout_hangs.replace("{n}", ask.length);
  else text = `${T.payout_unsure} (${percent(payout.confidence)})`;
  $("flag-count").textContent = text;
  note.className = "msg flag-note " + (payout.certain ? "good" : "warn");
  note.hidden = false;
  $("first-flag").hidden = ask.length === 0 && rest === 0;
  $("flag-rest").hidden = !(payout.certain || ask.length === 0) || rest === 0;
  $("flag-rest").textContent = T.payout_rest.replace("{n}", rest);
}

function percent(p) {
  return p >= 0.999 ? `${(Math.floor(p * 10000) / 100).toFixed(2)} %` : `${(Math.floor(p * 1000) / 10).toFixed(1)} %`;
}

function where(k) {
  const [s, c, rowId] = k.split("/");
  const sheet = editor.sheet;
  const rules = editor.rules;
  const row = rules.rows.find((x) => x.id === rowId);
  const col = rules.columns > 1 ? ` · ${rules.column_names[Number(c)]}` : "";
  return `${sheet.sides[Number(s)].name}${col} · ${row ? row.label : T.total}`;
}

// The next cell to look at: first the cells the payout hangs on, then the other unsure
// ones, each once per round; a round that has visited everything starts again.
function goNext(afterKey) {
  if (afterKey) skipped.add(afterKey);
  const order = [...deciding(), ...editor.openFlags()];
  const todo = order.filter((k, i) => order.indexOf(k) === i && !editor.edited.has(k));
  let next = todo.find((k) => !skipped.has(k));
  if (!next && todo.length) { skipped.clear(); next = todo.find((k) => k !== afterKey) || todo[0]; }
  if (next) editor.focusCell(next); else showPanel(null, null);
}

// The panel for the cell in focus: what was read, how sure, and one-tap choices.
function showPanel(k, flag) {
  current = k;
  const panel = $("review");
  if (!k || !flag) { panel.hidden = true; return; }
  const choices = [flag.read, ...(flag.alternatives || [])].filter(
    (v, i, a) => v !== null && v !== undefined && a.findIndex((w) => cellText(w) === cellText(v)) === i);
  const pct = typeof flag.confidence === "number" ? ` (${Math.round(flag.confidence * 100)} %)` : "";
  const chips = choices.map((v) => el("button", {
    type: "button", class: "chip", text: cellText(v),
    onmousedown: (ev) => ev.preventDefault(),  // keep the cell focused
    onclick: () => { editor.setCell(k, v); goNext(k); } }));
  panel.replaceChildren(
    el("div", { class: "review-where" }, el("strong", { text: where(k) }),
       el("span", { text: `${T.read_as}: ${cellText(flag.read) || "–"}${pct}` })),
    el("div", { class: "chips" }, ...chips,
       el("button", { type: "button", class: "chip next", text: T.next + " ▸",
                      onmousedown: (ev) => ev.preventDefault(), onclick: () => goNext(k) })));
  panel.hidden = false;
}

// A cell read as certain that the payout now hangs on becomes a flag too.
function flagExtras() {
  for (const c of payout.cells) {
    if (!c.extra || !c.affects_payout) continue;
    const readings = c.readings || [];
    editor.addFlag(keyOf(c), {
      side: c.side, column: c.column, row: c.row,
      read: readings.length ? readings[0][0] : null,
      alternatives: readings.slice(1).map((r) => r[0]),
      confidence: readings.length ? readings[0][1] : undefined });
  }
}

async function showResult(result) {
  const sheet = { game: result.game, variant: result.variant || [], sides: result.sides };
  if (result.serial) sheet.serial = result.serial;
  const rules = await fetchRules(sheet.game, sheet.variant);
  $("result").hidden = false;
  if (result.image) $("overlay").src = result.image;
  $("overlay").parentElement.hidden = !result.image;
  scan = result.readings ? { readings: result.readings, asked: result.review.map(keyOf) } : null;
  payout = null;
  skipped.clear();
  editor = new SheetEditor($("sheet"), {
    rules, sheet, review: result.review, written: true, onChange: changed,
    onFocus: (k, flag) => showPanel(k, flag) });
  settler = new Settler((report) => {
    $("settle-status").textContent = "";
    $("settle-status").className = "msg";
    editor.applyReport(report);
    renderSummary($("summary"), report);
    if (report.payout) { payout = report.payout; flagExtras(); updateFlagNote(); }
    window.settledCount = (window.settledCount || 0) + 1;  // lets tests wait for an answer
  }, (message) => {
    $("settle-status").textContent = message;
    $("settle-status").className = "msg bad";
  });
  $("variant-field").hidden = rules.all_variants.length === 0;
  variantBoxes($("variants"), rules, sheet.variant, async (variants) => {
    editor.setRules(await fetchRules(sheet.game, variants));
    showPanel(null, null);
  });
  changed();
}

$("photo").addEventListener("change", async () => {
  const file = $("photo").files[0];
  if (!file) return;
  $("result").hidden = true;
  $("status").className = "msg busy";
  $("status").textContent = T.reading;
  // The layout form only matters when the QR code cannot be read; empty = from the QR code.
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($("upload")).entries()) {
    if (k !== "photo" && v !== "") q.append(k, v);
  }
  if (!q.get("players")) q.delete("game");
  const r = await api("/api/scan?" + q.toString(), {
    method: "POST", body: file,
    headers: { "Content-Type": file.type || "application/octet-stream" } });
  $("photo").value = "";
  if (!r.ok) {
    $("status").className = "msg bad";
    $("status").textContent = r.data.error || T.error;
    return;
  }
  $("status").className = "msg";
  $("status").textContent = "";
  await showResult(r.data);
});
$("first-flag").addEventListener("click", () => goNext(null));
$("stake").addEventListener("input", () => editor && changed());
$("currency").addEventListener("input", () => editor && changed());
$("save").addEventListener("click", () => {
  if (payout && !payout.certain && !window.confirm(T.confirm_unsure_save)) return;
  saveToLedger(body(), $("settle-status"));
});
