// Tafel: choose the game and players, then type the sheet in during the game.
// The game in progress is kept in localStorage, so a reload or a locked phone loses nothing.
"use strict";

const STORE = "escalero.tafel";
const HOUSE = "escalero.house.";  // + the table's player names: its house rules
const $ = (id) => document.getElementById(id);
let editor = null;
let settler = null;
let gameId = null;  // this game's id: a second save of the same game asks first

function newGameId() {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return "tafel-" + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function saved() {
  try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { return null; }
}

function store() {
  if (!editor) return;
  localStorage.setItem(STORE, JSON.stringify({
    sheet: editor.getSheet(), stake: $("stake").value, currency: $("currency").value, gameId }));
}

function body() {
  return { sheet: editor.getSheet(), stake: $("stake").value, currency: $("currency").value,
           game_id: gameId };
}

function changed() {
  $("save").disabled = false;
  store();
  settler.schedule(body());
}

// A table is its players: the same names (in any order) get their terms back.
function tableKey(sheet) {
  return HOUSE + sheet.sides.map((side) => side.name).sort().join("|");
}

function rememberedTerms(sheet) {
  try { return JSON.parse(localStorage.getItem(tableKey(sheet)) || "null"); } catch (e) { return null; }
}

const sameTerms = (a, b) => a.all_three_bonus === b.all_three_bonus &&
  a.split_ties === b.split_ties && a.column_points.join("/") === b.column_points.join("/");

// The settings panel: edits sheet.house_rules; the server checks and settles with them.
function houseForm(rules) {
  $("house").hidden = !rules.house_rules;
  if (!rules.house_rules) return;
  const oneColumn = rules.columns === 1;
  $("house-points-field").hidden = oneColumn;
  $("house-bonus-field").hidden = oneColumn;
  const show = (terms) => {
    terms.column_points.forEach((p, i) => { if (i < 3) $("house-p" + i).value = p; });
    $("house-bonus").value = terms.all_three_bonus;
    $("house-split").checked = !!terms.split_ties;
    const named = Object.entries(rules.house_presets).find(([, p]) => oneColumn
      ? p.split_ties === terms.split_ties : sameTerms(p, terms));
    $("house-preset").value = named ? named[0] : "custom";
  };
  const read = () => ({
    column_points: oneColumn ? rules.house_rules.column_points.slice()
      : [0, 1, 2].map((i) => parseInt($("house-p" + i).value, 10)),
    all_three_bonus: parseInt($("house-bonus").value, 10),
    split_ties: $("house-split").checked,
  });
  const apply = () => {
    const terms = read();
    editor.sheet.house_rules = terms;
    localStorage.setItem(tableKey(editor.sheet), JSON.stringify(terms));
    show(terms);
    changed();
  };
  show(editor.sheet.house_rules || rules.house_rules);
  $("house-preset").onchange = () => {
    const preset = rules.house_presets[$("house-preset").value];
    if (preset) show({ ...preset, column_points: oneColumn
      ? rules.house_rules.column_points : preset.column_points });
    apply();
  };
  for (const id of ["house-p0", "house-p1", "house-p2", "house-bonus", "house-split"]) {
    $(id).onchange = apply;
  }
}

async function startGame(sheet, stake, currency, id) {
  gameId = id || newGameId();
  const rules = await fetchRules(sheet.game, sheet.variant || []);
  if (rules.house_rules && !sheet.house_rules) {
    const remembered = rememberedTerms(sheet);
    if (remembered) sheet.house_rules = remembered;
  }
  $("setup").hidden = true;
  $("game-view").hidden = false;
  $("stake").value = stake || "";
  $("currency").value = currency || "EUR";
  editor = new SheetEditor($("sheet"), { rules, sheet, onChange: changed });
  settler = new Settler((report) => {
    // Clear only the settler's own error: a "saved" message must outlive a late settle.
    if ($("status").dataset.settle) {
      $("status").textContent = "";
      $("status").className = "msg";
      delete $("status").dataset.settle;
    }
    editor.applyReport(report);
    renderSummary($("summary"), report, { hideEmpty: true });
    $("house-terms").textContent = report.settlement.terms || "";
  }, (message) => {
    $("status").textContent = message;
    $("status").className = "msg bad";
    $("status").dataset.settle = "1";
  });
  houseForm(rules);
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
$("save").addEventListener("click", () => saveToLedger(body(), $("status"), $("save")));
$("stake").addEventListener("input", () => editor && changed());
$("currency").addEventListener("input", () => editor && changed());

const previous = saved();
if (previous && previous.sheet) {
  startGame(previous.sheet, previous.stake, previous.currency, previous.gameId)
    .catch(() => showSetup());
} else {
  showSetup();
}
