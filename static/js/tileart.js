// Picture tiles, drawn here as SVG (no tile art is downloaded): dots as coins in their classic
// arrangements, bamboo as sticks (1 bamboo as a bird), characters as their numeral over 萬, winds and
// dragons as their characters (the white dragon as a blue frame), flowers and seasons with their
// number and character. Each face is drawn once into a hidden sprite and every tile shows it with
// <use>, so a table of 150 tiles holds 150 tiny elements, not 150 drawings.

const NS = "http://www.w3.org/2000/svg";
export const VIEW = "0 0 100 136"; // a tile is 1.36 times as tall as it is wide

const BLUE = "#1a4c9e";
const GREEN = "#136b35";
const RED = "#b2221a";
const INK = "#161616";
const HAN_FONT = '"Sparrow Han", "Noto Serif CJK TC", "Noto Sans CJK TC", serif';

const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONOURS = { E: "東", S: "南", W: "西", N: "北", R: "中", G: "發" };
const FLOWERS = ["梅", "蘭", "菊", "竹"];
const SEASONS = ["春", "夏", "秋", "冬"];

// Dots: [x, y, colour] per coin, in the classic arrangements; the radius per count.
const B = BLUE, G = GREEN, R = RED;
const DOTS = {
  2: [[50, 38, G], [50, 98, B]],
  3: [[24, 28, B], [50, 68, R], [76, 108, G]],
  4: [[28, 38, B], [72, 38, G], [28, 98, G], [72, 98, B]],
  5: [[26, 30, B], [74, 30, G], [50, 68, R], [26, 106, G], [74, 106, B]],
  6: [[30, 26, G], [70, 26, G], [30, 72, R], [70, 72, R], [30, 110, R], [70, 110, R]],
  7: [[22, 20, G], [50, 34, G], [78, 48, G], [30, 84, R], [70, 84, R], [30, 116, R], [70, 116, R]],
  8: [[30, 20, B], [70, 20, B], [30, 52, B], [70, 52, B], [30, 84, B], [70, 84, B], [30, 116, B], [70, 116, B]],
  9: [[22, 26, B], [50, 26, B], [78, 26, B], [22, 68, R], [50, 68, R], [78, 68, R], [22, 110, G], [50, 110, G], [78, 110, G]],
};
const DOT_RADIUS = { 2: 21, 3: 16, 4: 18, 5: 15, 6: 15, 7: 12, 8: 13, 9: 12.5 };

// Bamboo: [x, y (centre), colour] per stick, and the stick's length per count.
const STICKS = {
  2: [[50, 40, G], [50, 96, B]],
  3: [[50, 40, B], [30, 96, G], [70, 96, G]],
  4: [[30, 40, B], [70, 40, G], [30, 96, G], [70, 96, B]],
  5: [[24, 40, G], [76, 40, B], [50, 68, R], [24, 96, B], [76, 96, G]],
  6: [[22, 40, G], [50, 40, G], [78, 40, G], [22, 96, B], [50, 96, B], [78, 96, B]],
  7: [[50, 22, R], [22, 68, G], [50, 68, B], [78, 68, G], [22, 112, G], [50, 112, B], [78, 112, G]],
  8: [[16, 40, G], [39, 40, G], [61, 40, G], [84, 40, G], [16, 96, B], [39, 96, B], [61, 96, B], [84, 96, B]],
  9: [[22, 24, G], [50, 24, R], [78, 24, B], [22, 68, G], [50, 68, R], [78, 68, B], [22, 112, G], [50, 112, R], [78, 112, B]],
};
const STICK_LENGTH = { 2: 46, 3: 46, 4: 46, 5: 40, 6: 46, 7: 36, 8: 46, 9: 36 };

let sprite = null;
const drawn = new Set();

function node(tag, attrs, parent) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  if (parent) parent.append(el);
  return el;
}

function text(parent, content, x, y, size, fill, family = HAN_FONT) {
  const t = node("text", { x, y, "font-size": size, fill, "text-anchor": "middle", "font-family": family, "font-weight": 700 }, parent);
  t.textContent = content;
  return t;
}

function coin(parent, x, y, r, colour) {
  node("circle", { cx: x, cy: y, r, fill: colour }, parent);
  node("circle", { cx: x, cy: y, r: r * 0.68, fill: "#fffdf4" }, parent);
  node("circle", { cx: x, cy: y, r: r * 0.5, fill: "none", stroke: colour, "stroke-width": r * 0.12 }, parent);
  node("circle", { cx: x, cy: y, r: r * 0.22, fill: colour }, parent);
}

function dots(g, n) {
  if (n === 1) {
    coin(g, 50, 68, 40, BLUE);
    node("circle", { cx: 50, cy: 68, r: 15, fill: RED }, g);
    node("circle", { cx: 50, cy: 68, r: 6, fill: "#fffdf4" }, g);
    return;
  }
  for (const [x, y, colour] of DOTS[n]) coin(g, x, y, DOT_RADIUS[n], colour);
}

function stick(parent, x, y, length, colour) {
  const w = 11;
  node("rect", { x: x - w / 2, y: y - length / 2, width: w, height: length, rx: 5, fill: colour }, parent);
  node("rect", { x: x - w / 2 - 1.5, y: y - 2.5, width: w + 3, height: 5, rx: 2, fill: colour }, parent); // the node
  node("line", { x1: x, y1: y - length / 2 + 5, x2: x, y2: y + length / 2 - 5, stroke: "#fffdf4", "stroke-width": 2 }, parent);
}

function bird(g) {
  // 1 bamboo: a peacock-like bird on a stick, as on many sets
  node("path", { d: "M30 118 L58 70 L64 74 L38 122 Z", fill: GREEN }, g); // the perch
  node("path", { d: "M40 86 C30 60 44 36 64 34 C78 33 84 44 80 56 C76 70 62 84 40 86 Z", fill: GREEN }, g); // body
  node("path", { d: "M40 86 C22 96 16 112 22 126 C32 112 40 104 50 96 Z", fill: BLUE }, g); // tail
  node("path", { d: "M46 88 C36 104 36 118 44 128 C48 114 52 104 58 94 Z", fill: RED }, g);
  node("circle", { cx: 70, cy: 30, r: 11, fill: RED }, g); // head
  node("path", { d: "M80 28 L92 32 L80 35 Z", fill: "#c98a00" }, g); // beak
  node("circle", { cx: 72, cy: 28, r: 2.6, fill: "#fffdf4" }, g);
  node("path", { d: "M52 58 C58 50 68 50 72 56", fill: "none", stroke: "#fffdf4", "stroke-width": 3 }, g); // wing
}

function bamboo(g, n) {
  if (n === 1) {
    bird(g);
    return;
  }
  for (const [x, y, colour] of STICKS[n]) stick(g, x, y, STICK_LENGTH[n], colour);
}

function draw(g, code) {
  if (code.length === 1) {
    if (code === "P") {
      // the white dragon: a blue frame
      node("rect", { x: 16, y: 18, width: 68, height: 100, rx: 6, fill: "none", stroke: BLUE, "stroke-width": 7 }, g);
      node("rect", { x: 27, y: 29, width: 46, height: 78, rx: 3, fill: "none", stroke: BLUE, "stroke-width": 3 }, g);
      return;
    }
    const colour = code === "R" ? RED : code === "G" ? GREEN : INK;
    text(g, HONOURS[code], 50, 96, 72, colour);
    if ("ESWN".includes(code)) text(g, code, 15, 24, 22, BLUE, "system-ui, sans-serif");
    return;
  }
  const rank = +code[0];
  const suit = code[1];
  if (suit === "d") dots(g, rank);
  else if (suit === "b") bamboo(g, rank);
  else if (suit === "c") {
    text(g, NUMERALS[rank - 1], 50, 58, 50, INK);
    text(g, "萬", 50, 122, 56, RED);
  } else {
    const flower = suit === "f";
    const colour = flower ? "#8a2a84" : "#9a5200";
    text(g, String(rank), 16, 28, 26, colour, "system-ui, sans-serif");
    text(g, (flower ? FLOWERS : SEASONS)[rank - 1], 54, 104, 62, colour);
    if (flower) {
      for (const [dx, dy] of [[0, -9], [9, 0], [0, 9], [-9, 0]]) node("circle", { cx: 78 + dx, cy: 26 + dy, r: 6, fill: colour }, g);
      node("circle", { cx: 78, cy: 26, r: 4, fill: "#e0a400" }, g);
    } else {
      node("circle", { cx: 78, cy: 26, r: 10, fill: colour }, g);
      for (let i = 0; i < 8; i += 1) {
        const a = (i * Math.PI) / 4;
        node("line", { x1: 78 + 13 * Math.cos(a), y1: 26 + 13 * Math.sin(a), x2: 78 + 18 * Math.cos(a), y2: 26 + 18 * Math.sin(a), stroke: colour, "stroke-width": 3 }, g);
      }
    }
  }
}

/** The id of the sprite symbol drawing ``code`` (drawn on first use). */
function symbolId(code) {
  const id = `tile-art-${code}`;
  if (drawn.has(code)) return id;
  if (!sprite) {
    sprite = node("svg", { class: "tile-sprite", "aria-hidden": "true", focusable: "false" });
    document.body.prepend(sprite);
  }
  const symbol = node("symbol", { id, viewBox: VIEW }, sprite);
  draw(node("g", {}, symbol), code);
  drawn.add(code);
  return id;
}

/** An <svg> showing the picture face of ``code`` (decorative: the tile element carries the name). */
export function tilePicture(code) {
  const svg = node("svg", { class: "pic", viewBox: VIEW, "aria-hidden": "true", focusable: "false" });
  node("use", { href: `#${symbolId(code)}` }, svg);
  return svg;
}
