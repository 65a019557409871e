// What the live table (table.js) and a hand's replay (replay.js) both draw: a seat's panel — its wind,
// its sets and bonus tiles, its discards — and the end of a hand — every hand laid open, the score
// item by item with its arithmetic, and the payments. Pure functions of the view they are given (the
// `game` of docs/protocol.md §2.3, which a replay step's `view` shares) and the seat names: no state,
// no socket, so that both pages can import them. Names come from other people: every text is set
// with textContent, never parsed as HTML.

import { WIND_HAN, WIND_NAMES, backElement, parseTiles, sortTiles, tileElement, tileName, tileRow } from "./tiles.js";

/** An element with a class and a text (set as text, never parsed as HTML). */
export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** A badge in a seat's head: "dealer", "you", "wins"… `kind` adds its class (e.g. "turn"). */
export function badge(text, kind) {
  return el("span", kind ? `badge ${kind}` : "badge", text);
}

/** A wind: its letter and its Chinese character; `titled` names it in a tooltip too. */
export function windMark(wind, titled = false) {
  const mark = el("span", "wind");
  if (titled) mark.title = `${WIND_NAMES[wind]} wind`;
  mark.append(el("span", "wind-letter", wind), el("span", "han", WIND_HAN[wind]));
  return mark;
}

/** `count` face-down tiles. */
export function backsRow(count) {
  const backs = el("span", "tiles backs");
  for (let i = 0; i < count; i++) backs.append(backElement());
  return backs;
}

/** A set's name: "pung of 5 dots", "concealed kong of East wind", "chow 1 bamboo, 2 bamboo, 3 bamboo". */
export function meldName(meld) {
  const codes = parseTiles(meld.tiles);
  if (meld.kind === "chow") return `chow ${codes.map(tileName).join(", ")}`;
  const kind = meld.kind === "kong" && !meld.exposed ? "concealed kong" : meld.kind;
  return `${kind} of ${tileName(codes[0])}`;
}

/**
 * A set's tiles, named by `words(meld)` and whom it was claimed from. As on a real table the claimed
 * tile lies sideways, at the end of the set that points to the seat it came from (left, middle or
 * right, seen from `owner`, the set's seat, when given), and a concealed kong shows its two outer
 * tiles face down (unless `open`: every hand laid open at the end).
 */
export function meldElement(meld, names, words = meldName, owner = undefined, open = false) {
  let label = words(meld);
  if (meld.from !== undefined) label += `, claimed from ${names[meld.from]}`;
  const row = el("span", `tiles small meld meld-${meld.kind}${meld.exposed ? "" : " meld-concealed"}`);
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", label);
  row.title = label;
  const codes = parseTiles(meld.tiles);
  const tiles = codes.map((code) => tileElement(code));
  const at = meld.claimed === undefined || meld.claimed === null ? -1 : codes.indexOf(meld.claimed);
  if (at >= 0) {
    const [claimed] = tiles.splice(at, 1);
    claimed.classList.add("claimed-tile");
    const side = owner === undefined || meld.from === undefined ? 1 : (meld.from - owner + 4) % 4; // 1 right, 2 across, 3 left
    const place = side === 3 ? 0 : side === 2 ? Math.floor(tiles.length / 2) : tiles.length;
    tiles.splice(place, 0, claimed);
  }
  if (meld.kind === "kong" && !meld.exposed && tiles.length === 4 && !open) {
    tiles[0] = backElement();
    tiles[3] = backElement();
  }
  row.append(...tiles);
  return row;
}

function bonusRow(codes) {
  return tileRow(codes, { classes: "small bonus-row", label: "bonus tiles" });
}

/** A seat's exposed sets and bonus tiles, or null when it has none. */
export function setsRow(info, names, words = meldName, owner = undefined) {
  if (!info.melds.length && !info.bonus.length) return null;
  const sets = el("div", "melds");
  for (const meld of info.melds) sets.append(meldElement(meld, names, words, owner));
  if (info.bonus.length) sets.append(bonusRow(info.bonus));
  return sets;
}

/** Seat `s`'s discards, in order, each saying who claimed it; the one at index `latest` is marked. */
export function discardList(discards, s, names, latest = discards.length - 1) {
  const list = el("ol", "discards tiles small");
  list.setAttribute("aria-label", `${names[s]}'s discards`);
  discards.forEach((d, i) => {
    if (d.seat !== s) return;
    const li = el("li");
    const isLatest = i === latest;
    let label = tileName(d.tile);
    if (d.claimed_by != null) label += `, claimed by ${names[d.claimed_by]}`;
    if (d.danger) label += `, dangerous: ${d.danger}`; // R11.6
    if (isLatest) label += ", latest discard";
    const tile = tileElement(d.tile, { label });
    if (isLatest) li.classList.add("latest");
    if (d.claimed_by != null) li.classList.add("claimed");
    if (d.danger) {
      li.classList.add("dangerous");
      li.title = `Dangerous Game: ${d.danger}`;
    }
    li.append(tile);
    list.append(li);
  });
  return list;
}

/**
 * Seat `s`'s panel in `view`: a head with its wind, name, `badges` and score, then `concealed` (an
 * element, or null for none), its sets and its discards (the one at index `latest` marked).
 * options: classes (after "seat"), id, active, badges, concealed, latest, words (a set's name),
 * discards (false: drawn elsewhere, as the live table's pond does), extra (an element to add).
 */
export function seatPanel(
  view,
  s,
  names,
  { classes = "", id, active = false, badges = [], concealed = null, latest, words, discards = true, extra = null } = {},
) {
  const info = view.seats[s];
  const panel = el("section", `seat ${classes}`.trim());
  if (id) panel.id = id;
  panel.dataset.seat = String(s);
  if (active) panel.classList.add("active");
  panel.setAttribute("aria-label", `${names[s]}, ${WIND_NAMES[info.wind]} wind`);

  const head = el("header", "seat-head");
  head.append(windMark(info.wind, true), el("span", "name", names[s]), ...badges, el("span", "score", String(info.score)));
  panel.append(head);

  const body = el("div", "seat-body");
  if (concealed) body.append(concealed);
  const sets = setsRow(info, names, words, s);
  if (sets) body.append(sets);
  if (discards) body.append(discardList(view.discards, s, names, latest));
  if (extra) body.append(extra);
  panel.append(body);
  return panel;
}

// ------------------------------------------------------- the end of a hand
/** Every hand laid open, the winner's first, each with its score. */
export function revealList(view, result, names, words = meldName) {
  const order = [0, 1, 2, 3];
  if (result.winner !== null) order.sort((a, b) => (b === result.winner) - (a === result.winner));
  const cards = el("div", "reveal-list");
  for (const s of order) cards.append(revealed(view, s, result, names, words));
  return cards;
}

/** Seat `s`'s hand laid open (the winning tile marked) with its score: open for the winner, folded for the others. */
export function revealed(view, s, result, names, words = meldName) {
  const info = view.seats[s];
  const winner = s === result.winner;
  const card = el("article", `reveal${winner ? " winner" : ""}`);
  card.dataset.seat = String(s);
  const head = el("h3");
  head.append(windMark(info.wind), el("span", "name", names[s]));
  if (winner) head.append(badge("wins", "turn"));
  card.append(head);
  const tiles = el("div", "reveal-tiles");
  const score = result.scores ? result.scores[s] : null;
  // The winner's concealed tiles grouped into the sets and pair the score counts (when the score
  // says how); otherwise in order. The winning tile is in the hand: one copy of it is marked.
  const groups = winner && score && score.groups ? score.groups.map(parseTiles) : [sortTiles(parseTiles(info.concealed || ""))];
  let marked = false;
  for (const group of groups) {
    const row = el("span", groups.length > 1 ? "tiles small group" : "tiles small");
    if (groups.length > 1) {
      row.setAttribute("role", "group");
      row.setAttribute("aria-label", group.map(tileName).join(", "));
    }
    for (const code of group) {
      const last = winner && !marked && code === result.tile;
      row.append(tileElement(code, last ? { classes: "winning", label: `${tileName(code)}, the winning tile` } : {}));
      marked = marked || last;
    }
    tiles.append(row);
  }
  for (const meld of info.melds) tiles.append(meldElement(meld, names, words, s, true));
  if (info.bonus.length) tiles.append(bonusRow(info.bonus));
  card.append(tiles);
  if (score) {
    const table = scoreTable(score);
    if (winner) card.append(table);
    else {
      const details = el("details", "loser-score");
      details.append(el("summary", null, `Hand value ${score.value}`), table);
      card.append(details);
    }
  }
  return card;
}

/** A table cell naming rules, each rule number ("R8.2", "R5.2c") a link to it in the rule book (/rules). */
export function ruleCell(rule) {
  const td = el("td", "rule");
  const text = String(rule ?? "");
  let at = 0;
  for (const match of text.matchAll(/R\d+(?:\.\d+)?[a-z]?/g)) {
    td.append(text.slice(at, match.index));
    const link = el("a", null, match[0]);
    link.href = `/rules#${match[0].replace(/[a-z]$/, "")}`;
    link.title = "This rule in the rule book";
    td.append(link);
    at = match.index + match[0].length;
  }
  td.append(text.slice(at));
  return td;
}

/** A hand's score: one row an item (rule, words, points or doubles or limit), then the arithmetic and the value. */
export function scoreTable(score) {
  const table = el("table", "score-items");
  const body = el("tbody");
  for (const item of score.items) {
    let value;
    if (item.limit) value = `limit ${item.limit}`;
    else if (item.doubles) value = `×2${item.doubles > 1 ? ` ×${item.doubles}` : ""} (${item.doubles} double${item.doubles > 1 ? "s" : ""})`;
    else value = signed(item.points);
    const tr = el("tr");
    tr.append(ruleCell(item.rule), el("td", "text", item.text), el("td", "num", value));
    body.append(tr);
  }
  const foot = el("tfoot");
  const tr = el("tr");
  const sum = el("td", "arith", score.limit_hand ? `Limit hand: ${score.limit_hand} · ${score.arithmetic}` : score.arithmetic);
  sum.colSpan = 2;
  tr.append(sum, el("td", "num total", String(score.value)));
  foot.append(tr);
  table.append(body, foot);
  return table;
}

/** Who paid whom, and each seat's change and new score (the scores of `view`, after the hand). */
export function payments(view, result, names) {
  const wrap = el("section", "settlement");
  wrap.append(el("h3", null, "Payments"));
  if (result.payments && result.payments.length) {
    const table = el("table", "payments");
    const body = el("tbody");
    for (const p of result.payments) {
      const tr = el("tr");
      tr.append(
        el("td", "who", `${names[p.from]} → ${names[p.to]}`),
        el("td", "num", String(p.amount)),
        el("td", "text", p.text),
        ruleCell(p.rule),
      );
      body.append(tr);
    }
    table.append(body);
    wrap.append(table);
  } else {
    wrap.append(el("p", "muted", "No payments."));
  }
  if (result.changes) {
    const list = el("ul", "changes");
    result.changes.forEach((change, s) => {
      const li = el("li", change > 0 ? "up" : change < 0 ? "down" : "");
      li.append(el("span", "name", names[s]), el("span", "num change", signed(change)), el("span", "num total", `= ${view.seats[s].score}`));
      list.append(li);
    });
    wrap.append(list);
  }
  return wrap;
}
