// Tiles in R0 notation (docs/rules.md): parsing the compact form the server sends ("24889b 34c E RR"),
// sorting, names for people and screen readers, and the tile elements (static/css/tiles.css).
// A tile is drawn as a picture (tileart.js) or, in the "simple tiles" style a player may choose, as
// its rank numeral or honour letter, a suit symbol and its Chinese character. Either way colour is
// never the only cue, and the element's label names the tile ("7 bamboo").

import { loadTileStyle, saveTileStyle } from "./local.js";
import { tilePicture } from "./tileart.js";

/** Show every tile on the page in ``style`` ("pictures" or "simple"), and remember it. */
export function setTileStyle(style) {
  saveTileStyle(style);
  document.documentElement.classList.toggle("tiles-simple", style === "simple");
}

document.documentElement.classList.toggle("tiles-simple", loadTileStyle() === "simple");

const SUITS = { b: "bamboo", c: "characters", d: "dots" };
const SUIT_HAN = { b: "索", c: "萬", d: "筒" };
const HONOURS = {
  E: ["East wind", "東"],
  S: ["South wind", "南"],
  W: ["West wind", "西"],
  N: ["North wind", "北"],
  R: ["Red dragon", "中"],
  G: ["Green dragon", "發"],
  P: ["White dragon", "白"],
};
const FLOWERS = ["梅", "蘭", "菊", "竹"]; // plum, orchid, chrysanthemum, bamboo
const FLOWER_NAMES = ["Plum", "Orchid", "Chrysanthemum", "Bamboo"];
const SEASONS = ["春", "夏", "秋", "冬"];
const SEASON_NAMES = ["Spring", "Summer", "Autumn", "Winter"];
const ORDER = "bcd";
const HONOUR_ORDER = "ESWNRGP";

export const WIND_HAN = { E: "東", S: "南", W: "西", N: "北" };
export const WIND_NAMES = { E: "East", S: "South", W: "West", N: "North" };

/** The tiles written in R0 notation, in the order written: "123b W" → ["1b", "2b", "3b", "W"]. */
export function parseTiles(text) {
  const out = [];
  let digits = [];
  for (const ch of text || "") {
    if (/\s/.test(ch)) continue;
    if (/[0-9]/.test(ch)) digits.push(ch);
    else if ("bcdfs".includes(ch)) {
      for (const d of digits) out.push(d + ch);
      digits = [];
    } else if (HONOUR_ORDER.includes(ch)) out.push(ch);
  }
  return out;
}

/** Sort key: bamboo, characters, dots by rank, then winds, dragons, flowers, seasons. */
export function tileKey(code) {
  if (code.length === 1) return 100 + HONOUR_ORDER.indexOf(code);
  const suit = code[1];
  if (suit === "f") return 200 + +code[0];
  if (suit === "s") return 210 + +code[0];
  return ORDER.indexOf(suit) * 10 + +code[0];
}

export function sortTiles(codes) {
  return codes.slice().sort((a, b) => tileKey(a) - tileKey(b));
}

/** "5 dots", "1 dot", "East wind", "Plum (flower 1)": the names the score explanations use too. */
export function tileName(code) {
  if (code.length === 1) return HONOURS[code][0];
  const [rank, suit] = code;
  if (suit === "f") return `${FLOWER_NAMES[rank - 1]} (flower ${rank})`;
  if (suit === "s") return `${SEASON_NAMES[rank - 1]} (season ${rank})`;
  return `${rank} ${rank === "1" ? SUITS[suit].replace(/s$/, "") : SUITS[suit]}`; // 1 dot, 1 character, 1 bamboo
}

function faces(code) {
  // [numeral or letter, Chinese character, kind class]
  if (code.length === 1) {
    const kind = "ESWN".includes(code) ? "t-wind" : `t-dragon t-dragon-${code}`;
    return [code, HONOURS[code][1], kind];
  }
  const [rank, suit] = code;
  if (suit === "f") return [rank, FLOWERS[rank - 1], "t-bonus t-flower"];
  if (suit === "s") return [rank, SEASONS[rank - 1], "t-bonus t-season"];
  return [rank, SUIT_HAN[suit], `t-suit t-suit-${suit}`];
}

function span(cls, text) {
  const el = document.createElement("span");
  el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * A tile element for `code` (R0 notation), with `data-tile` set to the code.
 * options: tag ("span" or "button"), label (accessible name), extra classes.
 */
export function tileElement(code, { tag = "span", label, classes = "" } = {}) {
  const [mark, han, kind] = faces(code);
  const el = document.createElement(tag);
  el.className = `tile ${kind} ${classes}`.trim();
  el.dataset.tile = code;
  const name = label || tileName(code);
  if (tag === "span") el.setAttribute("role", "img");
  el.setAttribute("aria-label", name);
  el.title = name;
  const face = span("face");
  face.setAttribute("aria-hidden", "true");
  face.append(span("mark", mark), span("sym"), span("han", han));
  el.append(tilePicture(code), face);
  return el;
}

/** A face-down tile (another seat's concealed tile): no data-tile, nothing to read. */
export function backElement() {
  const el = document.createElement("span");
  el.className = "tile back";
  el.setAttribute("aria-hidden", "true");
  return el;
}

/** A row of tiles: a container element holding one tile element per code. */
export function tileRow(codes, { classes = "", label } = {}) {
  const row = document.createElement("span");
  row.className = `tiles ${classes}`.trim();
  if (label) {
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", label);
  }
  for (const code of codes) row.append(tileElement(code));
  return row;
}
