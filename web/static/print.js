// Print page: fetch the PDF so that a bad option shows its message on the page
// instead of a download of an error.
"use strict";

document.getElementById("print").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = ev.target;
  const status = document.getElementById("status");
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
  status.className = "msg good";
  status.textContent = "PDF ✓";
});
