// The admin page: members (invite, disable, make admin, password reset link, unlock logins), the club
// mode and sign-up code, every outstanding link (revocable), giving old games to a member, live tables,
// and the audit log. Every name is set as text.

import { apiAnswer, postJson } from "./local.js";

const root = document.getElementById("admin");
const $ = (id) => document.getElementById(id);
const errorBox = $("admin-error");
const notice = $("admin-notice");

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function say(message, isError = false) {
  errorBox.hidden = !isError;
  notice.hidden = isError;
  (isError ? errorBox : notice).textContent = message;
}

async function post(url, body, done) {
  try {
    const answer = await postJson(url, body);
    if (done) say(done(answer));
    await load();
    return answer;
  } catch (err) {
    say(err.message, true);
    return null;
  }
}

/** ``rows``, each cell labelled with its column's heading in ``body``'s table (a phone shows a row
 * as a card of labelled lines: sparrow.css). */
function labelled(body, rows) {
  const headings = [...body.closest("table").querySelectorAll("thead th")].map((th) => th.textContent);
  for (const row of rows) {
    [...row.cells].forEach((cell, i) => {
      if (headings[i]) cell.dataset.label = headings[i];
    });
  }
  return rows;
}

function button(text, onClick, cls) {
  const b = el("button", cls, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function memberRow(m) {
  const row = el("tr");
  row.append(el("td", null, m.name), el("td", null, m.admin ? "admin" : "member"));
  row.append(el("td", null, m.disabled ? "disabled" : "active"));
  const actions = el("td", "actions");
  const url = (template) => template.replace("MEMBER", String(m.id));
  actions.append(
    button(m.disabled ? "Enable" : "Disable", () =>
      post(url(root.dataset.member), { disabled: !m.disabled }, () => `${m.name} is ${m.disabled ? "enabled" : "disabled"}.`),
    ),
    button(m.admin ? "Remove admin" : "Make admin", () =>
      post(url(root.dataset.member), { admin: !m.admin }, () => `${m.name} is ${m.admin ? "no longer" : "now"} an admin.`),
    ),
    button("Rename", () => {
      const name = window.prompt(`A new name for ${m.name}:`, m.name);
      if (name && name.trim() !== m.name) post(url(root.dataset.rename), { name }, (a) => `${m.name} is now ${a.member.name}.`);
    }),
    button("Password reset link", async () => {
      const answer = await post(url(root.dataset.reset), {}, () => `A reset link for ${m.name}: send it to them.`);
      if (answer) showLink(answer.link);
    }),
    button("Unlock logins", () =>
      post(url(root.dataset.unlock), {}, () => `${m.name} may log in again at once, from anywhere.`),
    ),
  );
  row.append(actions);
  return row;
}

function showLink(link) {
  $("link-box").hidden = false;
  $("link-out").value = new URL(link, window.location.href).href;
  $("link-out").select();
}

const KINDS = { member: "Invitation", admin: "Admin invitation", reset: "Password reset link", guest: "Guest link", signup: "Sign-up code" };

function linkRow(kind, what, forWhom, by, used, expires, url) {
  const row = el("tr");
  row.append(
    el("td", null, KINDS[kind] || kind),
    el("td", null, forWhom),
    el("td", null, by || "the server"),
    el("td", null, used),
    el("td", null, expires ? new Date(expires).toLocaleString() : "never"),
  );
  const actions = el("td", "actions");
  actions.append(button("Revoke", () => post(url, {}, () => `${what} revoked.`)));
  row.append(actions);
  return row;
}

function outstandingRows(outstanding) {
  const invitations = outstanding.invitations.map((i) =>
    linkRow(i.kind, KINDS[i.kind], i.name || "anyone with the link", i.by, "not yet", i.expires,
      root.dataset.revokeInvitation.replace("INVITATION", String(i.id))),
  );
  const links = outstanding.links.map((l) =>
    linkRow(l.kind, KINDS[l.kind], l.kind === "guest" ? `table ${l.table}` : "anyone who knows it", l.by,
      l.uses === null ? `${l.used}` : `${l.used} of ${l.uses}`, l.expires,
      root.dataset.revokeLink.replace("LINK", String(l.id))),
  );
  return [...invitations, ...links];
}

function render(data) {
  const rows = outstandingRows(data.outstanding);
  $("link-rows").replaceChildren(...labelled($("link-rows"), rows));
  $("no-links").hidden = rows.length > 0;
  $("member-rows").replaceChildren(...labelled($("member-rows"), data.members.map(memberRow)));
  const select = $("names-member");
  const chosen = select.value;
  select.replaceChildren(...data.members.map((m) => Object.assign(el("option", null, m.name), { value: String(m.id) })));
  if (chosen) select.value = chosen;
  for (const radio of document.querySelectorAll('#mode-form input[name="mode"]')) radio.checked = radio.value === data.mode;
  const defaults = $("defaults-form");
  if (!defaults.dataset.filled) {
    defaults.dataset.filled = "1"; // not overwritten while the admin edits
    defaults.elements.ruleset.value = data.defaults.ruleset;
    defaults.elements.turn.value = data.defaults.timers.turn ?? "";
    defaults.elements.claim.value = data.defaults.timers.claim;
    $("origins-form").elements.origins.value = data.origins.join("\n");
    showLimits(data.limits, data.limits_started);
  }
  $("signup-state").textContent = data.signup ? "A sign-up code is set." : "No sign-up code: people join by invitation only.";
  const tables = data.tables.map((t) => {
    const item = el("li", "table-row");
    const link = el("a", null, t.name);
    link.href = root.dataset.tableUrl.replace("TABLE", encodeURIComponent(t.id));
    const seated = t.seats.filter((s) => s).map((s) => s.name).join(", ") || "nobody seated";
    item.append(link, el("span", "muted", ` · ${t.status} · ${seated} `));
    if (t.status === "playing") {
      item.append(
        button("Adjourn", () =>
          post(root.dataset.adjourn.replace("TABLE", encodeURIComponent(t.id)), {}, () => `"${t.name}" is adjourned.`),
        ),
      );
    }
    if (t.status === "waiting") {
      t.seats.forEach((s, i) => {
        if (!s) return;
        const remove = button(`Remove ${s.name}`, () =>
          post(root.dataset.remove.replace("TABLE", encodeURIComponent(t.id)), { seat: i }, () => `${s.name} removed.`),
        );
        remove.classList.add("ghost");
        item.append(remove);
      });
    }
    item.append(
      button("Close", (event) => {
        const b = event.currentTarget;
        if (b.dataset.armed !== "1") {
          b.dataset.armed = "1"; // a second click closes: its game stays stored
          b.textContent = "Really close?";
          return;
        }
        post(root.dataset.close.replace("TABLE", encodeURIComponent(t.id)), {}, () => `Closed "${t.name}".`);
      }),
    );
    return item;
  });
  $("table-rows").replaceChildren(...tables);
  $("no-tables").hidden = tables.length > 0;
  $("audit-rows").replaceChildren(...labelled($("audit-rows"), data.audit.map(auditRow)));
  showOlder(data.audit_next);
}

// A member is named with their number too: names change, numbers do not.
const who = (name, id) => (id === null || id === undefined ? name : `${name} (#${id})`);

function auditRow(line) {
  const row = el("tr");
  row.append(
    el("td", null, new Date(line.at).toLocaleString()),
    el("td", null, who(line.actor, line.actor_id)),
    el("td", null, line.action),
    el("td", null, who(line.target, line.target_id)),
    el("td", null, line.detail),
  );
  return row;
}

function showOlder(next) {
  const older = $("audit-older");
  older.hidden = next === null || next === undefined;
  older.dataset.before = older.hidden ? "" : String(next);
}

$("audit-older").addEventListener("click", async () => {
  const url = `${root.dataset.audit}?before=${encodeURIComponent($("audit-older").dataset.before)}`;
  try {
    const page = await apiAnswer(await fetch(url));
    $("audit-rows").append(...labelled($("audit-rows"), page.audit.map(auditRow)));
    showOlder(page.next);
  } catch (err) {
    say(err.message, true);
  }
});

async function load() {
  try {
    render(await apiAnswer(await fetch(root.dataset.api)));
  } catch (err) {
    say(err.message, true);
  }
}

function fields(form) {
  return Object.fromEntries(new FormData(form).entries());
}

$("invite-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { name, days } = fields(event.target);
  const answer = await post(root.dataset.invite, { name, days: Number(days) }, () => "Invitation made: send the link.");
  if (answer) showLink(answer.link);
});

$("mode-form").addEventListener("submit", (event) => {
  event.preventDefault();
  post(root.dataset.mode, { mode: fields(event.target).mode }, (a) => `The club mode is now "${a.mode}".`);
});

$("signup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const { code, until, uses } = fields(event.target);
  const body = { code, until: until || null, uses: uses ? Number(uses) : null };
  post(root.dataset.signup, body, (a) => (a.signup ? "Sign-up code saved." : "Sign-up by code is off."));
  event.target.reset();
});

$("defaults-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const f = event.target.elements;
  const timers = { turn: f.turn.value === "" ? null : Number(f.turn.value), claim: Number(f.claim.value) };
  post(root.dataset.defaults, { ruleset: f.ruleset.value, timers }, () => "Defaults saved: the lobby offers them.");
});

const shown = (value) => (value === null ? "none" : String(value));

function showLimits(limits, started) {
  $("limits-fields").replaceChildren(
    ...Object.keys(limits).map((name) => {
      const label = el("label", "field", name);
      const input = el("input");
      Object.assign(input, { name, value: shown(limits[name]), placeholder: shown(started[name]), autocomplete: "off" });
      label.append(input);
      return label;
    }),
  );
  $("limits-form").dataset.started = JSON.stringify(started);
}

$("limits-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const started = JSON.parse(event.target.dataset.started);
  const limits = {};
  for (const input of $("limits-fields").querySelectorAll("input")) {
    const value = input.value.trim();
    if (value !== "" && value !== shown(started[input.name])) limits[input.name] = value;
  }
  post(root.dataset.limits, { limits }, () => "Limits saved: every process of the server counts with them now.");
});

$("origins-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const origins = event.target.elements.origins.value.split("\n").map((o) => o.trim()).filter(Boolean);
  post(root.dataset.origins, { origins }, (a) => `Allowed sites: ${a.origins.join(", ") || "none"}.`);
});

$("names-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const { name, member } = fields(event.target);
  post(root.dataset.names, { name, member: Number(member) }, (a) => `${a.seats} game seat(s) given.`);
});

load();
