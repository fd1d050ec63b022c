// Scan page: send the photo (raw body), show the overlay and the sheet; flagged cells
// are highlighted and offered with the scanner's alternatives; every edit is re-settled.
"use strict";

const $ = (id) => document.getElementById(id);
let editor = null;
let settler = null;

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
  $("flag-note").textContent = `${open} ${T.flagged_count}: ${T.flagged}`;
}

function sideName(sheet, s) { return sheet.sides[s] ? sheet.sides[s].name : `${T.side} ${s + 1}`; }

// One line per flagged cell: where, what was read, and buttons for the likely values.
function renderReview(result, rules) {
  const root = $("review");
  root.replaceChildren();
  for (const r of result.review || []) {
    const row = rules.rows.find((x) => x.id === r.row);
    const label = row ? row.label : T.total;
    const col = rules.columns > 1 ? ` ${rules.column_names[r.column]}` : "";
    const choices = [r.read, ...(r.alternatives || [])].filter(
      (v, i, a) => v !== null && v !== undefined && a.indexOf(v) === i);
    const buttons = choices.map((v) => el("button", {
      type: "button", class: "chip", text: cellText(v),
      onclick: () => editor.setCell(r.side, r.column, r.row, v) }));
    const pct = typeof r.confidence === "number" ? ` ${Math.round(r.confidence * 100)}%` : "";
    root.append(el("div", { class: "review-line" },
      el("span", { text: `${sideName(result, r.side)}${col} · ${label}:${pct}` }), ...buttons));
  }
}

async function showResult(result) {
  const sheet = { game: result.game, variant: result.variant || [], sides: result.sides };
  if (result.serial) sheet.serial = result.serial;
  const rules = await fetchRules(sheet.game, sheet.variant);
  $("result").hidden = false;
  if (result.image) $("overlay").src = result.image;
  $("overlay").parentElement.hidden = !result.image;
  editor = new SheetEditor($("sheet"), { rules, sheet, review: result.review, written: true,
                                         onChange: changed });
  settler = new Settler((report) => {
    $("settle-status").textContent = "";
    editor.applyReport(report);
    renderSummary($("summary"), report);
  }, (message) => {
    $("settle-status").textContent = message;
    $("settle-status").className = "msg bad";
  });
  renderReview(result, rules);
  $("variant-field").hidden = rules.all_variants.length === 0;
  variantBoxes($("variants"), rules, sheet.variant, async (variants) => {
    editor.setRules(await fetchRules(sheet.game, variants));
  });
  changed();
}

$("photo").addEventListener("change", async () => {
  const file = $("photo").files[0];
  if (!file) return;
  $("result").hidden = true;
  $("status").className = "msg busy";
  $("status").textContent = T.reading;
  const r = await api("/api/scan", {
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
$("stake").addEventListener("input", () => editor && changed());
$("currency").addEventListener("input", () => editor && changed());
$("save").addEventListener("click", () => saveToLedger(body(), $("settle-status")));
