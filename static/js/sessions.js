// Your account's sessions: each browser you are logged in on (device, address, last seen), and a
// button that ends any one of them. Ending this browser's own session goes to the login page.

import { apiAnswer, postJson } from "./local.js";

const root = document.getElementById("sessions");
const rows = document.getElementById("session-rows");
const errorBox = document.getElementById("sessions-error");

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function say(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

async function end(session) {
  try {
    const answer = await postJson(root.dataset.end, { session: session.id });
    if (answer.current) {
      window.location.assign(root.dataset.next);
      return;
    }
    say("");
  } catch (err) {
    say(err.message);
  }
  await load();
}

function render(sessions) {
  rows.replaceChildren(
    ...sessions.map((session) => {
      const row = document.createElement("tr");
      const device = cell(session.device);
      if (session.current) device.append(" (this device)");
      const actions = document.createElement("td");
      actions.className = "actions";
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = session.current ? "Log out here" : "End";
      button.setAttribute("aria-label", `${button.textContent}: ${session.device}, ${session.address}`);
      button.addEventListener("click", () => end(session));
      actions.append(button);
      row.append(device, cell(session.address), cell(new Date(session.seen).toLocaleString()), actions);
      // a phone shows a row as a card of lines labelled with their column's heading (sparrow.css)
      [device.dataset.label, row.cells[1].dataset.label, row.cells[2].dataset.label] = ["Device", "Address", "Last seen"];
      return row;
    }),
  );
}

async function load() {
  try {
    render((await apiAnswer(await fetch(root.dataset.api))).sessions);
  } catch (err) {
    say(err.message);
  }
}

load();
