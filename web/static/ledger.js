// Ledger page: delete a game saved by mistake (asks first).
"use strict";

for (const button of document.querySelectorAll("button.delete")) {
  button.addEventListener("click", async () => {
    if (!window.confirm(T.confirm_delete)) return;
    const r = await api(`/api/ledger/${button.dataset.game}`, { method: "DELETE" });
    if (r.ok) window.location.reload();
    else window.alert(r.data.error || T.error);
  });
}
