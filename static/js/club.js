// The club's forms (log in, invitations, sign-up, password, log out): each form posts its named
// fields as JSON to its data-post address, then goes to data-next or says data-done. Refusals are
// shown as the server words them. While the request runs (and the next page loads) the button is
// disabled and says what is happening: its data-busy ("Signing in…"), or "Working…".

import { postJson } from "./local.js";

for (const form of document.querySelectorAll("form.club-form")) {
  const errorBox = form.querySelector("[data-error]");
  const doneBox = form.querySelector("[data-done-box]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {};
    for (const input of form.querySelectorAll("input[name]")) body[input.name] = input.value;
    const button = form.querySelector("button[type=submit]");
    const label = button.textContent;
    const idle = () => {
      button.disabled = false;
      button.textContent = label;
      form.removeAttribute("aria-busy");
    };
    button.disabled = true;
    button.textContent = button.dataset.busy || "Working…";
    form.setAttribute("aria-busy", "true");
    errorBox.hidden = true;
    doneBox.hidden = true;
    try {
      await postJson(form.dataset.post, body);
    } catch (err) {
      errorBox.textContent = err.message;
      errorBox.hidden = false;
      idle();
      return;
    }
    if (form.dataset.next) {
      window.location.assign(form.dataset.next); // the button stays busy until the next page shows
      return;
    }
    idle();
    for (const input of form.querySelectorAll("input[type=password]")) input.value = "";
    doneBox.textContent = form.dataset.done || "Done.";
    doneBox.hidden = false;
  });
}
