// Tafel: choose the game and players, then type the sheet in during the game.
// The game in progress is kept in localStorage, so a reload or a locked phone loses nothing.
"use strict";

const STORE = "escalero.tafel";
const $ = (id) => document.getElementById(id);
let editor = null;
let settler = null;

function saved() {
  try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { return null; }
}

function store() {
  if (!editor) return;
  localStorage.setItem(STORE, JSON.stringify({
    sheet: editor.getSheet(), stake: $("stake").value, currency: $("currency").value }));
}

function body() {
  return { sheet: editor.getSheet(), stake: $("stake").value, currency: $("currency").value };
}

function changed() {
  store();
  settler.schedule(body());
}

async function startGame(sheet, stake, currency) {
  const rules = await fetchRules(sheet.game, sheet.variant || []);
  $("setup").hidden = true;
  $("game-view").hidden = false;
  $("stake").value = stake || "";
  $("currency").value = currency || "EUR";
  editor = new SheetEditor($("sheet"), { rules, sheet, onChange: changed });
  settler = new Settler((report) => {
    $("status").textContent = "";
    $("status").className = "msg";
    editor.applyReport(report);
    renderSummary($("summary"), report, { hideEmpty: true });
  }, (message) => { $("status").textContent = message; $("status").className = "msg bad"; });
  changed();
}

async function showSetup(variants = []) {
  $("setup").hidden = false;
  $("game-view").hidden = true;
  const chosen = variants.slice();
  const update = async () => {
    const rules = await fetchRules($("game").value, []);
    $("variant-field").hidden = rules.all_variants.length === 0;
    variantBoxes($("setup-variants"), rules, chosen, (v) => chosen.splice(0, chosen.length, ...v));
  };
  $("game").onchange = update;
  await update();
  $("setup").onsubmit = (ev) => {
    ev.preventDefault();
    const names = $("players").value.split("\n").map((s) => s.trim()).filter(Boolean);
    const sheet = {
      game: $("game").value, variant: $("game").value === "escalero" ? chosen.slice() : [],
      sides: names.map((n) => ({ name: n, members: membersOf(n), columns: [] })),
    };
    startGame(sheet, "", "EUR").catch((e) => alert(e.message));
  };
}

$("new-game").addEventListener("click", () => {
  if (!window.confirm(T.confirm_clear)) return;
  // The next game is usually the same table: keep the game, rules and names.
  const last = editor.getSheet();
  $("game").value = last.game;
  $("players").value = last.sides.map((side) => side.name).join("\n");
  localStorage.removeItem(STORE);
  editor = null;
  showSetup(last.variant || []);
});
$("save").addEventListener("click", () => saveToLedger(body(), $("status")));
$("stake").addEventListener("input", () => editor && changed());
$("currency").addEventListener("input", () => editor && changed());

const previous = saved();
if (previous && previous.sheet) {
  startGame(previous.sheet, previous.stake, previous.currency).catch(() => showSetup());
} else {
  showSetup();
}
