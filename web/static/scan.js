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
let crops = {};         // "side/column/row" -> the cell's handwriting (JPEG data URL)
const UPLOAD_LONG_SIDE = 2500;  // px: plenty for the scanner, a fraction of a 12 MP photo
const DOUBT = 0.5;      // a best reading below this may be writing the row does not allow
const skipped = new Set();  // cells passed over with "Weiter" in this round
// The review in progress, kept for this tab (sessionStorage): a reload, back/forward or a
// language switch finds the answers, names and stake again. It holds the scan's readings
// and the cells' crops, not the photo.
const REVIEW = "escalero.scan.review";
let shown = null;       // the scan result on the page, without its photo

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
  $("save").disabled = false;
  settler.schedule(body());
  updateFlagNote();
  storeReview();
}

function storeReview() {
  if (!editor || !shown) return;
  try {
    sessionStorage.setItem(REVIEW, JSON.stringify({
      result: shown, sheet: editor.getSheet(), edited: [...editor.edited],
      checked: [...editor.checked], stake: $("stake").value, currency: $("currency").value,
      saved: $("save").disabled }));
  } catch (e) {
    // Storage full or switched off: the review goes on, it just will not survive a reload.
  }
}

// A side nobody named yet ("Spieler 2") is called so in the page's language after a switch.
function relabel(sheet) {
  const word = (name) => name.replace(/^(Spieler|Player|Jugador) (\d+)$/, `${T.player} $2`);
  for (const side of sheet.sides) {
    const members = side.members || [side.name];
    if (!members.some((m) => word(m) !== m)) continue;
    side.members = members.map(word);
    side.name = side.members.join(" & ");
  }
  return sheet;
}

function storedReview() {
  try { return JSON.parse(sessionStorage.getItem(REVIEW) || "null"); } catch (e) { return null; }
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
  else if (ask.length) text = plural("payout_hangs", ask.length);
  else text = `${T.payout_unsure} (${percent(payout.confidence)})`;
  $("flag-count").textContent = text;
  note.className = "msg flag-note " + (payout.certain ? "good" : "warn");
  note.hidden = false;
  $("first-flag").hidden = ask.length === 0 && rest === 0;
  // Each answer is settled again, and a close column can put up another cell: say so,
  // rather than promise a count that may grow.
  const more = $("flag-more");
  more.hidden = !payout.finished || payout.certain || ask.length === 0;
  more.textContent = T.payout_more.replace("{pct}", percent(payout.confidence))
    .replace("{need}", percent(payout.accept ?? 0.99, 0));
  $("flag-rest").hidden = !(payout.certain || ask.length === 0) || rest === 0;
  $("flag-rest").textContent = plural("payout_rest", rest);
  updateProgress();
}

// The review panel's own line on the payout: the banner has scrolled away while a
// player answers cells.
function updateProgress() {
  const line = $("review-progress");
  if (!line || !payout) return;
  const answered = editor.checked.size;
  const now = payout.certain ? `${T.payout_sure} (${percent(payout.confidence)})`
    : !payout.finished ? T.payout_unfinished
    : T.review_now.replace("{pct}", percent(payout.confidence))
      .replace("{need}", percent(payout.accept ?? 0.99, 0));
  line.textContent = `${plural("review_answered", answered)} · ${now}`;
  line.className = "review-progress " + (payout.certain ? "good" : "");
}

// A probability as the page's language writes a percentage, rounded down (99.95 % is
// never shown as 100 %): "99,0 %" in German and Spanish, "99.0%" in English.
function percent(p, digits = null) {
  const d = digits ?? (p >= 0.999 ? 2 : 1);
  const down = Math.floor(p * 10 ** (d + 2)) / 10 ** (d + 2);
  return new Intl.NumberFormat(LANG === "de" ? "de-AT" : LANG, {
    style: "percent", minimumFractionDigits: d, maximumFractionDigits: d }).format(down);
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

const keep = (ev) => ev.preventDefault();  // a tap on the panel keeps the cell focused

// The panel for the cell in focus: the handwriting enlarged, what was read and how sure,
// one-tap choices, and a keypad for what is written when it is none of them. A reading the
// recognizer barely believes is offered as what it likely is: writing the row forbids.
function showPanel(k, flag) {
  current = k;
  const panel = $("review");
  if (!k || !flag) { panel.hidden = true; return; }
  const doubtful = typeof flag.confidence === "number" && flag.confidence < DOUBT;
  const choices = [flag.read, ...(flag.alternatives || [])].filter(
    (v, i, a) => v !== null && v !== undefined && a.findIndex((w) => cellText(w) === cellText(v)) === i);
  const pct = typeof flag.confidence === "number" ? ` (${percent(flag.confidence, 0)})` : "";
  const chips = choices.map((v) => el("button", {
    type: "button", class: "chip", text: cellText(v), onmousedown: keep,
    onclick: () => { editor.setCell(k, v); goNext(k); } }));
  const illegal = el("button", { type: "button", class: "chip illegal" + (doubtful ? " first" : ""),
                                 text: T.review_illegal + " ⌨", onmousedown: keep,
                                 onclick: () => showKeypad(k) });
  const crop = crops[k] ? el("img", { class: "crop", src: crops[k], alt: T.handwriting }) : null;
  const said = doubtful ? T.review_doubt : `${T.read_as}: ${cellText(flag.read) || "–"}${pct}`;
  panel.replaceChildren(
    el("p", { id: "review-progress", class: "review-progress", "aria-live": "polite" }),
    el("div", { class: "review-where" }, el("strong", { text: where(k) }),
       el("span", { class: doubtful ? "doubt" : null, text: said })),
    el("div", { class: "review-body" }, crop,
       el("div", { class: "chips" }, ...(doubtful ? [illegal, ...chips] : [...chips, illegal]),
          el("button", { type: "button", class: "chip next", text: T.next + " ▸",
                         onmousedown: keep, onclick: () => goNext(k) }))),
    el("div", { id: "keypad", class: "keypad", hidden: true }));
  panel.hidden = false;
  updateProgress();
}

// What is written, typed on big keys; a value the row forbids turns the cell red and
// counts nothing until it is corrected.
function showKeypad(k) {
  const pad = $("keypad");
  const shown = el("output", { class: "keypad-value" });
  let text = "";
  const key = (label, action) => el("button", { type: "button", class: "key", text: label,
                                                 onmousedown: keep, onclick: action });
  const type = (d) => () => { text = (text + d).slice(0, 3); shown.textContent = text; };
  pad.replaceChildren(
    el("p", { class: "hint", text: `${T.review_type}. ${T.review_illegal_hint}` }), shown,
    el("div", { class: "keys" },
       ..."1234567890".split("").map((d) => key(d, type(d))),
       key("x", () => { text = "x"; shown.textContent = text; }),
       key("⌫", () => { text = text.slice(0, -1); shown.textContent = text; }),
       key(T.ok, () => { if (text) { editor.setCell(k, text === "x" ? "x" : Number(text)); goNext(k); } })));
  pad.hidden = false;
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

// A scan's result on the page; `kept` is a review stored before a reload (its sheet as
// edited, the cells answered, the stake), shown again instead of the result's first reading.
async function showResult(result, kept = null) {
  let sheet = { game: result.game, variant: result.variant || [], sides: result.sides };
  if (result.serial) sheet.serial = result.serial;
  if (kept && kept.sheet) sheet = relabel(kept.sheet);
  const rules = await fetchRules(sheet.game, sheet.variant || []);
  const { image, ...rest } = result;
  shown = rest;
  $("result").hidden = false;
  // What the scanner wants the player to know once (a layout guessed from the grid, the
  // rows and sides of a sheet it did not print), in the page's language.
  $("scan-warnings").textContent = (result.warnings || []).join(" ");
  $("scan-warnings").hidden = !(result.warnings || []).length;
  if (image) $("overlay").src = image;
  $("overlay").parentElement.hidden = !image;
  scan = result.readings ? { readings: result.readings, asked: result.review.map(keyOf) } : null;
  crops = result.crops || {};
  payout = null;
  skipped.clear();
  editor = new SheetEditor($("sheet"), {
    rules, sheet, review: result.review, written: true, onChange: changed,
    nameCrops: result.name_crops || {},
    onFocus: (k, flag) => showPanel(k, flag) });
  if (kept) {
    for (const k of kept.edited || []) editor.edited.add(k);
    for (const k of kept.checked || []) {
      editor.checked.add(k);
      const input = editor.input(k);
      if (input) input.parentElement.classList.add("checked");
    }
    $("stake").value = kept.stake ?? $("stake").value;
    $("currency").value = kept.currency || $("currency").value;
  }
  $("settle-status").textContent = "";  // a new sheet: the last one's "saved" is not its
  $("settle-status").className = "msg";
  delete $("settle-status").dataset.settle;
  settler = new Settler((report) => {
    // Clear only the settler's own error: a "saved" message must outlive a late settle.
    if ($("settle-status").dataset.settle) {
      $("settle-status").textContent = "";
      $("settle-status").className = "msg";
      delete $("settle-status").dataset.settle;
    }
    editor.applyReport(report);
    renderSummary($("summary"), report, { hideEmpty: true });
    $("names-note").hidden = !editor.sheet.sides.some((side) => isPlaceholder(side.name));
    if (report.payout) { payout = report.payout; flagExtras(); updateFlagNote(); }
    window.settledCount = (window.settledCount || 0) + 1;  // lets tests wait for an answer
  }, (message) => {
    $("settle-status").textContent = message;
    $("settle-status").className = "msg bad";
    $("settle-status").dataset.settle = "1";
  });
  $("variant-field").hidden = rules.all_variants.length === 0;
  variantBoxes($("variants"), rules, sheet.variant, async (variants) => {
    editor.setRules(await fetchRules(sheet.game, variants));
    showPanel(null, null);
  });
  changed();
  if (kept && kept.saved) { $("save").disabled = true; storeReview(); }
}

$("photo").addEventListener("change", async () => {
  const file = $("photo").files[0];
  if (!file) return;
  $("result").hidden = true;
  shown = null;  // a new photo replaces the review on the page, and the one kept
  window.settledCount = 0;  // lets tests wait for the new photo's answers, not the last ones
  try { sessionStorage.removeItem(REVIEW); } catch (e) { /* storage off */ }
  $("status").className = "msg busy";
  $("status").textContent = T.reading;
  // The layout form only matters when the QR code cannot be read; empty = from the QR code.
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($("upload")).entries()) {
    if (k !== "photo" && v !== "") q.append(k, v);
  }
  if (!q.get("players")) q.delete("game");
  const photo = await shrink(file);
  const r = await upload("/api/scan?" + q.toString(), photo);
  $("photo").value = "";
  if (!r.ok) {
    $("status").className = "msg bad";
    $("status").textContent = r.data.error || T.error;
    // Refused with no layout named (a sheet not ours, its code unreadable): one step, the
    // game and the players, then the same photo again.
    if (!q.get("players")) $("layout").open = true;
    return;
  }
  $("status").className = "msg";
  $("status").textContent = "";
  await showResult(r.data);
});
// A phone photo is shrunk before it travels: canvas, long side ~2500 px, JPEG. What the
// browser cannot decode (HEIC on most browsers, not an image at all) goes as it is, and the
// server says what it makes of it.
async function shrink(file) {
  let bitmap;
  try { bitmap = await createImageBitmap(file, { imageOrientation: "from-image" }); } catch (e) { return file; }
  const scale = Math.min(1, UPLOAD_LONG_SIDE / Math.max(bitmap.width, bitmap.height));
  if (scale === 1 && file.size < 3e6) { bitmap.close(); return file; }
  $("status").textContent = T.shrinking;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise((done) => canvas.toBlob(done, "image/jpeg", 0.9));
  return blob || file;
}

// POST the photo with the upload's progress on the page, then "reading" while it scans.
function upload(url, blob) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.setRequestHeader("Content-Type", blob.type || "application/octet-stream");
    xhr.upload.onprogress = (ev) => {
      if (!ev.lengthComputable) return;
      const p = Math.round((100 * ev.loaded) / ev.total);
      $("status").textContent = p < 100 ? T.uploading.replace("{p}", p) : T.reading;
      $("progress").value = p;
    };
    xhr.upload.onload = () => { $("status").textContent = T.reading; $("progress").removeAttribute("value"); };
    xhr.onload = () => {
      let data = {};
      try { data = JSON.parse(xhr.responseText); } catch (e) { data = { error: xhr.statusText || T.error }; }
      resolve({ ok: xhr.status >= 200 && xhr.status < 300, status: xhr.status, data });
    };
    xhr.onerror = () => resolve({ ok: false, status: 0, data: { error: T.offline } });
    $("progress").hidden = false;
    $("progress").value = 0;
    xhr.send(blob);
  }).finally(() => { $("progress").hidden = true; });
}

$("first-flag").addEventListener("click", () => goNext(null));
$("stake").addEventListener("input", () => editor && changed());
$("currency").addEventListener("input", () => editor && changed());
$("save").addEventListener("click", () => {
  if (payout && !payout.certain && !window.confirm(T.confirm_unsure_save)) return;
  saveToLedger(body(), $("settle-status"), $("save")).then(storeReview);
});

// A review kept in this tab (reload, back/forward, language switch) comes back as it was.
const keptReview = storedReview();
if (keptReview && keptReview.result) {
  showResult(keptReview.result, keptReview).catch(() => {
    try { sessionStorage.removeItem(REVIEW); } catch (e) { /* storage off */ }
    $("result").hidden = true;
  });
}
