// Ledger page: delete a game saved by mistake (asks first), and undo that delete.
"use strict";

const UNDO = "escalero.ledger.undo";

for (const button of document.querySelectorAll("button.delete")) {
  button.addEventListener("click", async () => {
    if (!window.confirm(T.confirm_delete)) return;
    const r = await api(`/api/ledger/${button.dataset.game}`, { method: "DELETE" });
    if (!r.ok) { window.alert(r.data.error || T.error); return; }
    try { sessionStorage.setItem(UNDO, r.data.undo); } catch (e) { /* storage off */ }
    window.location.reload();
  });
}

// Right after a delete the page offers to bring the game back.
let undoToken = null;
try { undoToken = sessionStorage.getItem(UNDO); sessionStorage.removeItem(UNDO); } catch (e) { /* off */ }
if (undoToken) {
  document.getElementById("undo").hidden = false;
  document.getElementById("undo-button").addEventListener("click", async () => {
    const r = await postJSON("/api/ledger/undo", { undo: undoToken });
    if (!r.ok) { window.alert(r.data.error || T.error); return; }
    window.location.reload();
  });
}
