// Print page: fetch the PDF so that a bad option shows its message on the page
// instead of a download of an error, and say what was printed. The server checks the
// form (novalidate), so every message is one, in the page's language; a change to the
// form takes an old message away.
"use strict";

const status = document.getElementById("status");
const printForm = document.getElementById("print");
printForm.addEventListener("input", () => {
  if (status.classList.contains("bad")) { status.className = "msg"; status.textContent = ""; }
});

printForm.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = ev.target;
  status.className = "msg busy";
  status.textContent = "…";
  let response;
  try {
    response = await fetch(form.action, { method: "POST", body: new FormData(form) });
  } catch (e) {
    status.className = "msg bad";
    status.textContent = T.offline;
    return;
  }
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    status.className = "msg bad";
    status.textContent = data.error || T.error;
    return;
  }
  const blob = await response.blob();
  const name = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const a = el("a", { href: URL.createObjectURL(blob), download: name ? name[1] : "escalero.pdf" });
  document.body.append(a);
  a.click();
  a.remove();
  const sheets = Number(response.headers.get("X-Escalero-Sheets") || 0);
  const [first, last] = (response.headers.get("X-Escalero-Serials") || "").split(" ");
  status.className = "msg good";
  status.textContent = sheets ? plural("print_done", sheets, { first, last }) : "PDF ✓";
});
