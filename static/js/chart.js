// SVG line charts for the history pages: every seat's score after each hand (game page) and a
// player's running total over games (player page). Each line has its own colour, dash pattern and
// marker shape and carries its name at its end, so colour is never the only cue. Every point has a
// <title> (a tooltip and a screen reader's text). The chart is drawn at its box's width in pixels
// (so its text stays readable on a phone) and again when that width changes.

const NS = "http://www.w3.org/2000/svg";

export const LINE_STYLES = [
  { colour: "#1a4c9e", dash: "", marker: "circle", name: "solid line, circles" },
  { colour: "#b2221a", dash: "8 4", marker: "square", name: "dashed line, squares" },
  { colour: "#136b35", dash: "2 4", marker: "triangle", name: "dotted line, triangles" },
  { colour: "#8a4b00", dash: "11 4 2 4", marker: "diamond", name: "dash-dot line, diamonds" },
];

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A marker of `shape` centred on (x, y), radius about `r`. */
export function markerShape(shape, x, y, r, colour) {
  const fill = { fill: colour, stroke: "#fff", "stroke-width": 1.2 };
  const pts = (list) => list.map(([px, py]) => `${(x + px * r).toFixed(1)},${(y + py * r).toFixed(1)}`).join(" ");
  switch (shape) {
    case "square":
      return svg("rect", { x: x - r * 0.9, y: y - r * 0.9, width: r * 1.8, height: r * 1.8, ...fill });
    case "triangle":
      return svg("polygon", { points: pts([[0, -1.25], [1.15, 0.85], [-1.15, 0.85]]), ...fill });
    case "diamond":
      return svg("polygon", { points: pts([[0, -1.3], [1.3, 0], [0, 1.3], [-1.3, 0]]), ...fill });
    default:
      return svg("circle", { cx: x, cy: y, r, ...fill });
  }
}

/** A small picture of a line style, for legends: a stroke with its marker in the middle. */
export function styleSample(style) {
  const sample = svg("svg", { width: 34, height: 14, viewBox: "0 0 34 14", "aria-hidden": "true", class: "line-sample" });
  sample.append(
    svg("line", { x1: 1, y1: 7, x2: 33, y2: 7, stroke: style.colour, "stroke-width": 2.5, "stroke-dasharray": style.dash }),
    markerShape(style.marker, 17, 7, 4, style.colour),
  );
  return sample;
}

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * power) return m * power;
  return 10 * power;
}

/**
 * Draw a line chart into `box` (replacing what it holds).
 * lines: [{name, values: [number], style}] — all the same length;
 * xLabels: one label per value index; title: the chart's accessible name;
 * point(lineIndex, valueIndex): the text of a point's tooltip.
 */
export function lineChart(box, { lines, xLabels, title, point, baseline = null }) {
  const width = Math.max(280, Math.floor(box.clientWidth || 600));
  const height = width < 520 ? 230 : 300;
  const count = xLabels.length;
  const values = lines.flatMap((l) => l.values);
  if (baseline !== null) values.push(baseline);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (low === high) {
    low -= 10;
    high += 10;
  }
  const step = niceStep(high - low, height < 260 ? 4 : 6);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;

  const longest = Math.max(...lines.map((l) => l.name.length));
  const left = 12 + 7 * Math.max(...[low, high].map((v) => String(v).length));
  const right = Math.min(width < 520 ? 86 : 130, 14 + longest * 7.2);
  const top = 12;
  const bottom = 30;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (i) => left + (count > 1 ? (i * plotW) / (count - 1) : plotW / 2);
  const y = (v) => top + ((high - v) * plotH) / (high - low);

  const id = `chart-${Math.random().toString(36).slice(2, 8)}`;
  const root = svg("svg", {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-labelledby": `${id}-t`,
    class: "line-chart",
  });
  root.append(svg("title", { id: `${id}-t` }, title));

  const grid = svg("g", { class: "grid" });
  for (let v = low; v <= high + step / 2; v += step) {
    grid.append(svg("line", { x1: left, x2: left + plotW, y1: y(v), y2: y(v), class: v === baseline ? "base" : "" }));
    grid.append(svg("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, String(Math.round(v))));
  }
  const every = Math.max(1, Math.ceil(count / Math.max(1, Math.floor(plotW / 44))));
  for (let i = 0; i < count; i += every) {
    grid.append(svg("text", { x: x(i), y: height - 10, "text-anchor": "middle" }, xLabels[i]));
  }
  root.append(grid);

  const ends = [];
  lines.forEach((line, li) => {
    const { colour, dash, marker } = line.style;
    const group = svg("g", { class: "series" });
    group.append(svg("title", {}, line.name));
    const points = line.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    group.append(
      svg("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2.5, "stroke-dasharray": dash, "stroke-linejoin": "round" }),
    );
    const r = count > 40 ? 2.6 : 4;
    line.values.forEach((v, i) => {
      const mark = markerShape(marker, x(i), y(v), r, colour);
      mark.append(svg("title", {}, point(li, i)));
      group.append(mark);
    });
    root.append(group);
    ends.push({ name: line.name, y: y(line.values[line.values.length - 1]), colour });
  });

  // names at the ends of the lines, pushed apart so that none overlaps another
  ends.sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + 14);
  const overflow = ends.length ? ends[ends.length - 1].y - (top + plotH) : 0;
  if (overflow > 0) for (const end of ends) end.y -= overflow;
  const fits = Math.max(3, Math.floor((right - 10) / 7.2));
  for (const end of ends) {
    const label = end.name.length > fits ? `${end.name.slice(0, fits - 1)}…` : end.name;
    const text = svg("text", { x: left + plotW + 8, y: end.y + 4, fill: end.colour, class: "end-label" }, label);
    if (label !== end.name) text.append(svg("title", {}, end.name));
    root.append(text);
  }
  box.replaceChildren(root);
}

/** Call `draw()` now and whenever `box` changes width. */
export function drawAndFollow(box, draw) {
  draw();
  let last = box.clientWidth;
  if (typeof ResizeObserver === "undefined") return;
  new ResizeObserver(() => {
    if (Math.abs(box.clientWidth - last) < 8) return;
    last = box.clientWidth;
    draw();
  }).observe(box);
}
