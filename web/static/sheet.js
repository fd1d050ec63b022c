// The sheet editor shared by the Tafel and the scan page: an editable table of one
// score sheet, checked against the ruleset the server sends (/api/rules) and settled
// by the server (/api/settle), which is the single source of the rules.
"use strict";

const T = JSON.parse(document.getElementById("i18n").textContent);
const STRUCK = new Set(["x", "X", "-", "/", "0"]);
const LANG = document.documentElement.lang || "de";
const LOCALE = LANG === "de" ? "de-AT" : LANG;  // German pages write Austrian style
const PLURALS = new Intl.PluralRules(LANG);

// An amount ("4.50" from the server) as the page's language writes money: "-€ 4,50" (de),
// "-€4.50" (en), "-4,50 €" (es); a currency that is no ISO code follows the number.
function fmtMoney(amount, currency, signed = false) {
  const n = Number(amount);
  if (!Number.isFinite(n)) return `${amount} ${currency}`;
  const iso = /^[A-Z]{3}$/.test(currency);
  let text;
  try {
    text = iso ? new Intl.NumberFormat(LOCALE, { style: "currency", currency }).format(n)
      : `${new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n)} ${currency}`;
  } catch (e) {
    text = `${amount} ${currency}`;
  }
  return signed && n > 0 ? "+" + text : text;
}

// Game points with their sign: "+1", "-2", "+0,5".
function fmtPoints(p) {
  if (!p) return "0";
  const text = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 }).format(Math.abs(p));
  return (p > 0 ? "+" : "-") + text;
}

// A catalog text with a number in it, in the plural form that number takes in the page's
// language (the catalog holds key_one and key_other); {n} and other {params} filled in.
function plural(key, n, params = {}) {
  let text = T[`${key}_${PLURALS.select(n)}`] ?? T[`${key}_other`];
  for (const [k, v] of Object.entries({ n, ...params })) text = text.replaceAll(`{${k}}`, v);
  return text;
}

async function api(url, options = {}) {
  let response;
  try {
    response = await fetch(url, options);
  } catch (err) {
    return { ok: false, status: 0, data: { error: T.offline } };
  }
  let data = {};
  try { data = await response.json(); } catch (err) { data = { error: response.statusText }; }
  return { ok: response.ok, status: response.status, data };
}

function postJSON(url, body) {
  return api(url, { method: "POST", headers: { "Content-Type": "application/json" },
                    body: JSON.stringify(body) });
}

async function fetchRules(game, variants) {
  const q = new URLSearchParams({ game });
  for (const v of variants) q.append("variant", v);
  const r = await api("/api/rules?" + q.toString());
  if (!r.ok) throw new Error(r.data.error || T.error);
  return r.data;
}

// Text typed in a cell -> {value, ok, text}: value is an integer, "x" (struck) or null.
function parseCell(text, row) {
  const s = (text || "").trim();
  if (s === "") return { value: null, ok: true };
  if (STRUCK.has(s)) return { value: "x", ok: true };
  if (!/^\d{1,4}$/.test(s)) return { value: null, ok: false };
  const n = parseInt(s, 10);
  return { value: n, ok: !row || row.allowed.includes(n) };
}

function cellText(value) {
  if (value === null || value === undefined) return "";
  return value === "x" || value === 0 ? "x" : String(value);
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function membersOf(name) {
  const parts = name.split(/[&+]/).map((s) => s.trim()).filter(Boolean);
  return parts.length ? parts : [name.trim()];
}

class SheetEditor {
  // options: rules, sheet (JSON), review (scanner's flagged cells), written (show the
  // written-total row), onChange(sheet)
  constructor(root, options) {
    this.root = root;
    this.rules = options.rules;
    this.sheet = JSON.parse(JSON.stringify(options.sheet));
    this.review = new Map();
    for (const r of options.review || []) this.review.set(this.key(r.side, r.column, r.row), r);
    this.checked = new Set();
    this.edited = new Set();  // every cell a person typed or chose: exact from now on
    this.written = !!options.written;
    this.onChange = options.onChange || (() => {});
    this.onFocus = options.onFocus || (() => {});
    this.nameCrops = options.nameCrops || {};  // "side/member" -> the name box's ink (scan)
    this.normalise();
    this.render();
  }

  key(side, column, row) { return `${side}/${column}/${row}`; }

  // Make every side hold exactly rules.columns columns (variants may change the count).
  normalise() {
    const n = this.rules.columns;
    for (const side of this.sheet.sides) {
      side.columns = (side.columns || []).slice(0, n);
      while (side.columns.length < n) side.columns.push({});
      const wt = (side.written_totals || []).slice(0, n);
      while (wt.length < n) wt.push(null);
      side.written_totals = wt;
      if (!side.members || !side.members.length) side.members = membersOf(side.name);
    }
    this.sheet.game = this.rules.game;
    this.sheet.variant = this.rules.variants.slice();
  }

  setRules(rules) {
    this.rules = rules;
    this.normalise();
    this.render();
    this.onChange(this.getSheet());
  }

  getSheet() { return JSON.parse(JSON.stringify(this.sheet)); }

  flaggedOpen() { return this.openFlags().length; }

  render() {
    const rules = this.rules;
    const cols = rules.columns;
    const table = el("table", { class: "sheet" });
    const head = el("thead");
    const names = el("tr", {}, el("th", { class: "lab corner" }));
    this.sheet.sides.forEach((side, s) => {
      const input = el("input", { class: "name", value: side.name, "aria-label": T.player,
                                  "data-side": s, enterkeyhint: "next", list: "roster",
                                  autocomplete: "off" });
      input.classList.toggle("unnamed", isPlaceholder(side.name));
      input.addEventListener("change", () => {
        const name = input.value.trim() || `${T.player} ${s + 1}`;
        side.name = name;
        side.members = membersOf(name);
        input.value = name;
        input.classList.toggle("unnamed", isPlaceholder(name));
        addToRoster(name);
        this.onChange(this.getSheet());
      });
      const inks = [0, 1].map((m) => this.nameCrops[`${s}/${m}`]).filter(Boolean)
        .map((src) => el("img", { class: "name-crop", src, alt: T.handwriting }));
      names.append(el("th", { colspan: cols, class: "side-head s" + (s % 6), "data-head": s },
                      ...inks, input));
    });
    head.append(names);
    if (cols > 1) {
      const heads = el("tr", {}, el("th", { class: "lab" }));
      this.sheet.sides.forEach((side, s) => rules.column_names.forEach((c, ci) => heads.append(
        el("th", { class: "colhead" + (ci === 0 ? " first" : ""), text: c,
                   title: `× ${rules.column_weights[ci]}` }))));
      head.append(heads);
    }
    table.append(head);

    const body = el("tbody");
    for (const row of rules.rows) {
      const tr = el("tr", { "data-row": row.id });
      tr.append(el("th", { class: "lab", scope: "row", title: row.describe },
                   el("span", { text: row.label }),
                   el("small", { text: row.describe })));
      this.sheet.sides.forEach((side, s) => {
        for (let c = 0; c < cols; c++) tr.append(this.cellTd(s, c, row));
      });
      body.append(tr);
    }
    table.append(body);

    const foot = el("tfoot");
    const sums = el("tr", { class: "sums" }, el("th", { class: "lab", text: T.total }));
    this.sheet.sides.forEach((side, s) => {
      for (let c = 0; c < cols; c++) {
        sums.append(el("td", { class: "sum" + (c === 0 ? " first" : ""),
                               "data-sum": `${s}/${c}` }));
      }
    });
    foot.append(sums);
    if (this.written) {
      const wt = el("tr", { class: "written" }, el("th", { class: "lab", text: T.written_total }));
      this.sheet.sides.forEach((side, s) => {
        for (let c = 0; c < cols; c++) wt.append(this.cellTd(s, c, null));
      });
      foot.append(wt);
    }
    const pts = el("tr", { class: "points" }, el("th", { class: "lab", text: T.points_short }));
    this.sheet.sides.forEach((side, s) => pts.append(
      el("td", { colspan: cols, class: "pts", "data-points": s })));
    foot.append(pts);
    table.append(foot);

    // Wider than a phone from three players on: every side's points stay in view, a tap
    // on a side shows its columns, and the cell in focus is named (its header has
    // scrolled away mid-table).
    this.points = el("div", { class: "bar-points", "aria-live": "polite" });
    this.here = el("div", { class: "cell-where", hidden: true });
    this.bar = el("div", { class: "points-bar" }, this.points, this.here);
    const wrap = el("div", { class: "sheet-wrap" }, table);
    this.more = el("div", { class: "more-right", "aria-hidden": "true" });
    this.root.replaceChildren(this.bar, el("div", { class: "sheet-frame" }, wrap, this.more),
                              rosterList());
    this.table = table;
    this.wrap = wrap;
    wrap.addEventListener("scroll", () => {
      this.showMore();
      const td = document.activeElement && document.activeElement.closest("td.c");
      if (td && table.contains(td)) this.placeMsg(td);
    }, { passive: true });
    table.addEventListener("focusout", (ev) => {
      if (!ev.relatedTarget || !table.contains(ev.relatedTarget)) this.showWhere(null);
    });
    requestAnimationFrame(() => { this.showMore(); this.keepClear(); });
  }

  // More columns to the right: a mark at the edge says the table goes on.
  showMore() {
    const w = this.wrap;
    this.more.hidden = w.scrollLeft + w.clientWidth >= w.scrollWidth - 2;
  }

  // The sticky bars stay clear of the cell a phone scrolls into view.
  keepClear() {
    const tabs = document.querySelector(".tabs");
    const top = tabs ? tabs.offsetHeight : 0;
    this.bar.style.top = `${top}px`;
    document.documentElement.style.scrollPaddingTop = `${top + this.bar.offsetHeight + 8}px`;
  }

  // Scroll the table sideways so that side s's columns sit next to the row labels.
  showSide(s) {
    const head = this.table.querySelector(`th[data-head="${s}"]`);
    const lab = this.table.querySelector("th.lab");
    if (head) this.wrap.scrollLeft = head.offsetLeft - (lab ? lab.offsetWidth : 0);
  }

  // The bar names the cell in focus (side, column, row) and marks its side.
  showWhere(k) {
    this.points.querySelectorAll(".bar-side").forEach((b) => b.classList.remove("on"));
    this.here.hidden = !k;
    if (!k) return;
    const [s, c, rowId] = k.split("/");
    const row = this.rules.rows.find((r) => r.id === rowId);
    const col = this.rules.columns > 1 ? ` · ${this.rules.column_names[Number(c)]}` : "";
    this.here.textContent = `${this.sheet.sides[Number(s)].name}${col} · ${row ? row.label : T.total}`;
    const side = this.points.querySelector(`.bar-side[data-side="${s}"]`);
    if (side) side.classList.add("on");
  }

  // The rule under a red cell stays inside the visible part of the table, however far
  // it is scrolled: shifted left where the cell sits near the right edge.
  placeMsg(td) {
    if (!td.dataset.msg) return;
    const wrap = this.wrap.getBoundingClientRect();
    const cell = td.getBoundingClientRect();
    const width = Math.min(240, wrap.width - 8);
    const left = Math.max(wrap.left + 4 - cell.left,
                          Math.min(0, wrap.right - 4 - width - cell.left));
    td.style.setProperty("--msg-left", `${Math.round(left)}px`);
    td.style.setProperty("--msg-width", `${Math.round(width)}px`);
  }

  // One editable cell; row === null is the written total of the column.
  cellTd(s, c, row) {
    const side = this.sheet.sides[s];
    const rowId = row ? row.id : "total";
    const k = this.key(s, c, rowId);
    const value = row ? side.columns[c][row.id] : side.written_totals[c];
    const flag = this.review.get(k);
    const input = el("input", {
      id: "cell-" + k.replaceAll("/", "-"),
      class: "cell", inputmode: "numeric", autocomplete: "off", maxlength: 4,
      value: cellText(value), "data-key": k,
      "aria-label": `${side.name} ${this.rules.column_names[c]} ${row ? row.label : T.total}`,
      placeholder: flag && flag.read !== null && flag.read !== undefined ? cellText(flag.read) : "",
    });
    const td = el("td", { class: "c" + (c === 0 ? " first" : "") }, input);
    if (flag) {
      td.classList.add("flag");
      const alts = (flag.alternatives || []).map(cellText).join(", ");
      td.title = `${T.flagged}: ${T.read_as} ${cellText(flag.read)}` + (alts ? ` (${alts})` : "");
    }
    const check = () => {
      const parsed = parseCell(input.value, row);
      td.classList.toggle("bad", !parsed.ok);
      // The rule sits by the red cell itself, not below a table wider than the screen.
      const rule = `${T.not_allowed}; ${T.allowed}: ${row ? row.describe : "0-999"}`;
      input.title = parsed.ok ? "" : rule;
      if (parsed.ok) delete td.dataset.msg; else td.dataset.msg = rule;
      return parsed;
    };
    check();
    input.addEventListener("input", () => {
      const parsed = check();
      if (row) side.columns[c][row.id] = parsed.value;
      else side.written_totals[c] = parsed.value === "x" ? 0 : parsed.value;
      this.edited.add(k);
      if (this.review.has(k)) { this.checked.add(k); td.classList.add("checked"); }
      this.onChange(this.getSheet());
    });
    input.addEventListener("focus", () => {
      this.showWhere(k);
      this.placeMsg(td);
      this.onFocus(k, this.review.get(k) || null);
    });
    input.addEventListener("blur", () => {
      if (parseCell(input.value, row).value === "x") input.value = "x";
    });
    return td;
  }

  input(k) { return this.table.querySelector(`input[data-key="${k}"]`); }

  setCell(k, value) {
    const input = this.input(k);
    if (!input) return;
    input.value = cellText(value);
    input.dispatchEvent(new Event("input"));
  }

  // Flag a cell after the fact (a reading called certain that the payout now hangs on).
  addFlag(k, flag) {
    if (this.review.has(k)) return;
    this.review.set(k, flag);
    const input = this.input(k);
    if (input) input.parentElement.classList.add("flag");
  }

  // Flagged cells not yet looked at, in table order (row by row, left to right).
  openFlags() {
    return [...this.table.querySelectorAll("td.flag:not(.checked) input")].map(
      (i) => i.dataset.key);
  }

  focusCell(k) {
    const input = this.input(k);
    if (!input) return;
    input.scrollIntoView({ block: "center", inline: "center" });
    input.focus({ preventScroll: true });
  }

  // Show the server's settlement: totals, column winners, points, problem cells.
  applyReport(report) {
    const st = report.settlement;
    const cols = this.rules.columns;
    // A column's winner is only provisional while any of its cells is open.
    const open = new Set(report.validation.filter((p) => p.kind === "empty" && p.column !== null)
      .map((p) => p.column));
    this.table.querySelectorAll("td.sum").forEach((td) => {
      const [s, c] = td.dataset.sum.split("/").map(Number);
      const total = st.totals[s] ? st.totals[s][c] : "";
      td.textContent = total;
      td.classList.toggle("win", st.winners[c] === s);
      td.classList.toggle("provisional", st.winners[c] === s && open.has(c));
      td.title = st.winners[c] === s && open.has(c) ? `${T.winner} (${T.provisional})` : "";
    });
    const focused = this.table.querySelector("td.c input:focus");
    const pointsOf = this.sheet.sides.map((side, s) => {
      const p = st.points[s];
      return el("button", { type: "button", class: "bar-side " + (p > 0 ? "plus" : p < 0 ? "minus" : ""),
                            "data-side": s, onclick: () => this.showSide(s),
                            onmousedown: (ev) => ev.preventDefault() },
                el("span", { text: side.name }),
                el("strong", { text: fmtPoints(p) }));
    });
    // A finished game adds nothing (replaceChildren would print a null as "null").
    if (!st.complete) pointsOf.push(el("em", { text: T.provisional }));
    this.points.replaceChildren(...pointsOf);
    if (focused) this.showWhere(focused.dataset.key);
    this.keepClear();
    this.table.querySelectorAll("td.pts").forEach((td) => {
      const s = Number(td.dataset.points);
      const p = st.points[s];
      td.textContent = fmtPoints(p);
      td.classList.toggle("plus", p > 0);
      td.classList.toggle("minus", p < 0);
    });
    this.table.querySelectorAll("td.problem").forEach((td) => td.classList.remove("problem"));
    for (const p of report.validation) {
      if (p.kind === "empty" || p.side === null || p.column === null || !p.row) continue;
      const input = this.table.querySelector(
        `input[data-key="${this.key(p.side, p.column, p.row)}"]`);
      if (input) {
        input.parentElement.classList.add("problem");
        input.title = p.message;
        input.parentElement.dataset.msg = p.message;
      }
    }
    if (focused) this.placeMsg(focused.parentElement);
    this.showMore();
    void cols;
  }
}

// Posts the sheet for settlement; only the answer to the latest request is shown.
class Settler {
  constructor(onReport, onError) {
    this.seq = 0;
    this.timer = null;
    this.onReport = onReport;
    this.onError = onError;
  }

  schedule(body, delay = 150) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(body), delay);
  }

  async run(body) {
    const seq = ++this.seq;
    const r = await postJSON("/api/settle", body);
    if (seq !== this.seq) return;
    if (r.ok) this.onReport(r.data); else this.onError(r.data.error || T.error);
  }
}

function renderSummary(root, report, options = {}) {
  const parts = [];
  const money = report.money;
  if (money) {
    const list = el("ul", { class: "amounts" });
    for (const [name, amount] of Object.entries(money.players)) {
      const n = parseFloat(amount);
      list.append(el("li", { class: n > 0 ? "plus" : n < 0 ? "minus" : "" },
        el("span", { text: name }),
        el("strong", { text: fmtMoney(amount, money.currency, true) })));
    }
    const empty = report.validation.filter((p) => p.kind === "empty").length;
    parts.push(el("h2", { text: empty ? plural("provisional_amounts", empty) : T.amount,
                          class: empty ? "provisional" : null }), list);
    if (money.transfers.length) {
      const tl = el("ul", { class: "transfers" });
      for (const t of money.transfers) {
        tl.append(el("li", {}, el("span", { text: `${t.from} ${T.pays} ${t.to}` }),
                     el("strong", { text: fmtMoney(t.amount, money.currency) })));
      }
      parts.push(el("h2", { text: T.transfers }), tl);
    }
  }
  const shown = report.validation.filter((p) => !(options.hideEmpty && p.kind === "empty"));
  const open = report.validation.length - shown.length;
  // A written total that differs from its column needs nothing done (the entries count):
  // a note, not a problem in red.
  const notes = shown.filter((p) => p.kind === "total");
  const problems = shown.filter((p) => p.kind !== "total");
  const line = (p) => el("li", { text: p.where ? `${p.where}: ${p.message}` : p.message });
  if (problems.length) {
    parts.push(el("h2", { text: T.problems }), el("ul", { class: "problems" }, ...problems.map(line)));
  } else if (!open) {
    parts.push(el("p", { class: "msg good", text: T.no_problems }));
  }
  if (notes.length) {
    parts.push(el("h2", { class: "notes-head", text: T.notes }),
               el("ul", { class: "notes" }, ...notes.map(line)));
  }
  if (open) parts.push(el("p", { class: "hint", text: plural("incomplete", open) }));
  root.replaceChildren(...parts);
}

// Save a settled sheet in the ledger. A game saved before (same serial, or same Tafel game)
// asks first (HTTP 409); a side still called "Spieler N" asks whether they are guests (422).
// After a save the button stays off until the sheet changes.
async function saveToLedger(body, statusEl, button) {
  if (button) button.disabled = true;
  let r = await postJSON("/api/ledger", body);
  if (r.status === 422 && r.data.unnamed) {
    if (!window.confirm(T.confirm_guests.replace("{names}", r.data.unnamed.join(", ")))) {
      statusEl.className = "msg bad";
      statusEl.textContent = r.data.error;
      if (button) button.disabled = false;
      return false;
    }
    body = { ...body, guests: true };
    r = await postJSON("/api/ledger", body);
  }
  if (r.status === 409 && r.data.duplicate) {
    const ask = body.game_id ? T.confirm_saved_again : T.confirm_duplicate;
    if (!window.confirm(`${ask}\n${r.data.error}`)) { if (button) button.disabled = false; return false; }
    r = await postJSON("/api/ledger", { ...body, confirm: true });
  }
  statusEl.className = "msg " + (r.ok ? "good" : "bad");
  delete statusEl.dataset.settle;
  statusEl.replaceChildren(r.ok
    ? el("span", {}, T.saved + " ", el("a", { href: "/ledger", text: T.nav_ledger }))
    : el("span", { text: r.data.error || T.error }));
  if (button) button.disabled = r.ok;
  return r.ok;
}

// Name suggestions: the ledger's players; a name typed here joins them for this page.
const ROSTER = new Set();
let rosterAsked = false;
function rosterList() {
  let list = document.getElementById("roster");
  if (!list) list = el("datalist", { id: "roster" });
  if (!rosterAsked) {
    rosterAsked = true;
    api("/api/roster").then((r) => { if (r.ok) r.data.players.forEach(addToRoster); });
  }
  return list;
}

function addToRoster(name) {
  for (const n of membersOf(name)) {
    if (!n || ROSTER.has(n) || isPlaceholder(n)) continue;
    ROSTER.add(n);
    const list = document.getElementById("roster");
    if (list) list.append(el("option", { value: n }));
  }
}

// "Spieler 2": the name a side has when nobody typed one (any language).
function isPlaceholder(name) {
  return /^(Spieler|Player|Jugador) \d+$/.test(name.trim()) ||
    membersOf(name).some((m) => /^(Spieler|Player|Jugador) \d+$/.test(m));
}

function variantBoxes(root, rules, selected, onChange) {
  root.replaceChildren();
  for (const v of rules.all_variants) {
    const box = el("input", { type: "checkbox", value: v, checked: selected.includes(v) });
    box.addEventListener("change", () => {
      const chosen = [...root.querySelectorAll("input:checked")].map((b) => b.value);
      onChange(chosen);
    });
    root.append(el("label", { class: "check" }, box, el("span", { text: T["variant_" + v] || v })));
  }
}
