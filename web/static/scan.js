// Scan page: send the photo (raw body), show the overlay and the sheet. Flagged cells are
// highlighted; a panel under the table offers the scanner's readings for the cell in focus
// and walks from one unsure cell to the next. Every edit is settled again by the server.
"use strict";

const $ = (id) => document.getElementById(id);
let editor = null;
let settler = null;
let current = null;

function body() {
  return { sheet: editor.getSheet(), stake: $("stake").value, currency: $("currency").value };
}

function changed() {
  settler.schedule(body());
  updateFlagNote();
}

function updateFlagNote() {
  const open = editor.flaggedOpen();
  $("flag-note").hidden = open === 0;
  $("flag-count").textContent = `${open} ${T.flagged_count}`;
}

function where(k) {
  const [s, c, rowId] = k.split("/");
  const sheet = editor.sheet;
  const rules = editor.rules;
  const row = rules.rows.find((x) => x.id === rowId);
  const col = rules.columns > 1 ? ` · ${rules.column_names[Number(c)]}` : "";
  return `${sheet.sides[Number(s)].name}${col} · ${row ? row.label : T.total}`;
}

function goNext(afterKey) {
  const open = editor.openFlags().filter((k) => k !== afterKey);
  if (open.length) editor.focusCell(open[0]); else showPanel(null, null);
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

async function showResult(result) {
  const sheet = { game: result.game, variant: result.variant || [], sides: result.sides };
  if (result.serial) sheet.serial = result.serial;
  const rules = await fetchRules(sheet.game, sheet.variant);
  $("result").hidden = false;
  if (result.image) $("overlay").src = result.image;
  $("overlay").parentElement.hidden = !result.image;
  editor = new SheetEditor($("sheet"), {
    rules, sheet, review: result.review, written: true, onChange: changed,
    onFocus: (k, flag) => showPanel(k, flag) });
  settler = new Settler((report) => {
    $("settle-status").textContent = "";
    $("settle-status").className = "msg";
    editor.applyReport(report);
    renderSummary($("summary"), report);
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
$("save").addEventListener("click", () => saveToLedger(body(), $("settle-status")));
