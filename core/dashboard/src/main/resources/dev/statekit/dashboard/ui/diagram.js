// A machine's diagram as SVG, laid out here from its states and rows.
//
// States stand in columns by their distance from the initial state, terminal states in the last
// column, and within a column near their predecessors. A row between neighbouring columns is a
// curve between the facing sides (two curves apart when rows go both ways); a row within a column
// an arc on the column's right; a row to its own state a loop. A row that jumps columns runs along
// a lane: forward above the states, back below them; rows of one event into one state share their
// lane, drawn as one line with one label. Labels (events, one a line; guards in their tooltips)
// are placed where they cover no state and no other label.

import { svg, link } from './dom.js';

const GAP_X = 110;
const MAX_GAP = 300;
const GAP_Y = 30;
const MARGIN = 24;
const LEFT = 44;
const NODE_H = 38;
const NODE_H_COUNTS = 50;
const LANE = 18;
let diagrams = 0;

function nodeWidth(name) {
  return Math.max(92, Math.round(name.length * 8.2) + 28);
}

function labelWidth(text) {
  return Math.round(text.length * 6.4) + 10;
}

/** Returns the path through points, its corners rounded by radius r. */
function rounded(points, r) {
  let d = `M ${points[0][0]} ${points[0][1]}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [px, py] = points[i - 1];
    const [x, y] = points[i];
    const [nx, ny] = points[i + 1];
    const inLength = Math.hypot(x - px, y - py) || 1;
    const outLength = Math.hypot(nx - x, ny - y) || 1;
    const ri = Math.min(r, inLength / 2, outLength / 2);
    d += ` L ${x - ((x - px) / inLength) * ri} ${y - ((y - py) / inLength) * ri}`
      + ` Q ${x} ${y} ${x + ((nx - x) / outLength) * ri} ${y + ((ny - y) / outLength) * ri}`;
  }
  const [lx, ly] = points[points.length - 1];
  return d + ` L ${lx} ${ly}`;
}

/** Returns the point at t of the cubic curve p0 c1 c2 p3. */
function cubic([p0, c1, c2, p3], t) {
  const u = 1 - t;
  return [0, 1].map((i) => u * u * u * p0[i] + 3 * u * u * t * c1[i] + 3 * u * t * t * c2[i] + t * t * t * p3[i]);
}

/** Returns the area two rectangles share. */
function overlap(a, b) {
  return Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
}

/** Returns the columns of the states: distance from the initial state, terminal states (and unreached ones) last. */
function columnsOf(def, names, states, next) {
  const column = new Map([[def.initial, 0]]);
  const queue = [def.initial];
  while (queue.length) {
    const n = queue.shift();
    if (states.get(n).terminal) continue;
    for (const m of next.get(n)) {
      if (!column.has(m)) {
        column.set(m, column.get(n) + 1);
        queue.push(m);
      }
    }
  }
  const inner = names.filter((n) => column.has(n) && !states.get(n).terminal).map((n) => column.get(n));
  const last = Math.max(0, ...inner) + 1;
  for (const n of names) {
    if (n !== def.initial && (!column.has(n) || states.get(n).terminal)) column.set(n, last);
  }
  // no empty column
  const used = [...new Set(column.values())].sort((a, b) => a - b);
  for (const n of names) column.set(n, used.indexOf(column.get(n)));
  return column;
}

/**
 * Returns the diagram of def ({name, initial, states, transitions}) as an <svg>.
 * options.current: the state to mark; options.counts: state name → tasks, shown in the states;
 * options.links: whether a state links to the list of its tasks.
 */
export function drawDiagram(def, options = {}) {
  const id = ++diagrams;
  const counts = options.counts || null;
  const nodeH = counts ? NODE_H_COUNTS : NODE_H;
  const names = def.states.map((s) => s.name);
  const order = new Map(names.map((n, i) => [n, i]));
  const states = new Map(def.states.map((s) => [s.name, s]));
  const next = new Map(names.map((n) => [n, []]));
  const previous = new Map(names.map((n) => [n, []]));
  for (const t of def.transitions) {
    if (t.from === t.to || !next.has(t.from) || !next.has(t.to)) continue;
    next.get(t.from).push(t.to);
    previous.get(t.to).push(t.from);
  }
  const column = columnsOf(def, names, states, next);
  const columns = [];
  for (const n of names) {
    const c = column.get(n);
    while (columns.length <= c) columns.push([]);
    columns[c].push(n);
  }
  // within a column, by the mean row of the state's predecessors in earlier columns
  const row = new Map();
  columns.forEach((c) => c.forEach((n, i) => row.set(n, i)));
  for (let sweep = 0; sweep < 3; sweep++) {
    for (let i = 1; i < columns.length; i++) {
      const mean = (n) => {
        const ps = previous.get(n).filter((p) => column.get(p) < i);
        return ps.length ? ps.reduce((sum, p) => sum + row.get(p), 0) / ps.length : row.get(n);
      };
      const keys = new Map(columns[i].map((n) => [n, mean(n)]));
      columns[i].sort((a, b) => keys.get(a) - keys.get(b) || order.get(a) - order.get(b));
      columns[i].forEach((n, k) => row.set(n, k));
    }
  }

  // one edge per pair of states, labelled with the events of its rows; lanes counted first
  const pairs = new Map();
  for (const t of def.transitions) {
    if (!states.has(t.from) || !states.has(t.to)) continue;
    const key = t.from + '\u0000' + t.to;
    if (!pairs.has(key)) pairs.set(key, { from: t.from, to: t.to, events: [], rows: [] });
    const pair = pairs.get(key);
    if (!pair.events.includes(t.event)) pair.events.push(t.event);
    pair.rows.push(t.event + (t.guard ? ' [' + t.guard + ']' : '') + ' (' + t.sources.map((x) => x.toLowerCase()).join(', ') + ')');
  }
  const lanes = { above: new Map(), below: new Map() };
  for (const p of pairs.values()) {
    p.text = p.events.join(', ');
    const span = column.get(p.to) - column.get(p.from);
    if (span > 1 || span < -1) {
      p.side = span > 1 ? 'above' : 'below';
      const key = p.to + '\u0000' + p.text;
      if (!lanes[p.side].has(key)) lanes[p.side].set(key, { index: lanes[p.side].size, from: Infinity, to: -Infinity, text: p.text, rows: [] });
      p.lane = lanes[p.side].get(key);
      p.lane.rows.push(p.from + ': ' + p.rows.join(', '));
    }
  }

  // the gap after a column fits the labels of the curves across it
  const gaps = columns.map(() => GAP_X);
  for (const p of pairs.values()) {
    const span = column.get(p.to) - column.get(p.from);
    if (span === 1 || span === -1) {
      const c = Math.min(column.get(p.from), column.get(p.to));
      gaps[c] = Math.min(MAX_GAP, Math.max(gaps[c], Math.max(...p.events.map(labelWidth)) + 56));
    }
  }

  // positions
  const rows = Math.max(...columns.map((c) => c.length));
  const pitch = nodeH + GAP_Y;
  const above = MARGIN + 30 + lanes.above.size * LANE;
  const box = new Map();
  const columnLeft = [];
  const columnWidth = [];
  let x = LEFT;
  columns.forEach((c, ci) => {
    const width = Math.max(...c.map(nodeWidth));
    columnLeft.push(x);
    columnWidth.push(width);
    const top = above + ((rows - c.length) * pitch) / 2;
    c.forEach((n, i) => {
      const w = nodeWidth(n);
      box.set(n, { x: x + (width - w) / 2, y: top + i * pitch, w, h: nodeH, column: ci, first: i === 0, last: i === c.length - 1 });
    });
    x += width + gaps[ci];
  });
  let maxX = x - gaps[columns.length - 1];
  const statesBottom = above + rows * pitch - GAP_Y;
  const statesTop = above;
  let maxY = statesBottom + (lanes.below.size ? 16 + lanes.below.size * LANE : 24);

  const placed = [...box.values()].map((r) => ({ x: r.x - 3, y: r.y - 3, w: r.w + 6, h: r.h + 6, node: true }));
  const labels = svg('g', { class: 'edge-labels' });
  const place = (lines, candidates, title) => {
    const w = Math.max(...lines.map(labelWidth));
    const h = 14 * lines.length + 2;
    // the first place that covers nothing, else the one that covers least (a state weighs more than a label)
    let chosen = candidates[0];
    let least = Infinity;
    for (const c of candidates) {
      const r = { x: c[0] - w / 2, y: c[1] - h / 2, w, h };
      const cost = placed.reduce((sum, o) => sum + (o.node ? 8 : 1) * overlap(o, r), 0);
      if (cost < least) {
        least = cost;
        chosen = c;
      }
      if (cost === 0) break;
    }
    const [cx, cy] = chosen;
    placed.push({ x: cx - w / 2, y: cy - h / 2, w, h });
    maxX = Math.max(maxX, cx + w / 2);
    maxY = Math.max(maxY, cy + h / 2);
    const text = svg('text', { x: cx, y: cy - h / 2 + 12, 'text-anchor': 'middle' },
      lines.map((line, i) => svg('tspan', { x: cx, dy: i === 0 ? 0 : 14, text: line })));
    labels.append(svg('g', { class: 'edge-label' }, svg('title', { text: title }),
      svg('rect', { x: cx - w / 2, y: cy - h / 2, width: w, height: h, rx: 3 }), text));
  };
  const along = (curve) => [0, -14, 14, -28, 28].flatMap((dy) => [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78]
    .map((t) => cubic(curve, t)).map(([px, py]) => [px, py + dy]));

  const edges = svg('g', { class: 'edges' });
  const marker = 'arrow-' + id;
  const draw = (d) => edges.append(svg('path', { d, class: 'edge', 'marker-end': `url(#${marker})` }));
  for (const p of pairs.values()) {
    const a = box.get(p.from);
    const b = box.get(p.to);
    const span = b.column - a.column;
    if (p.from === p.to) {
      // a loop over the state's top right corner
      const cx = a.x + a.w - 18;
      draw(`M ${cx - 10} ${a.y} C ${cx - 26} ${a.y - 34}, ${cx + 26} ${a.y - 34}, ${cx + 10} ${a.y}`);
      place(p.events, [[cx, a.y - 30 - 7 * (p.events.length - 1)], [cx + Math.max(...p.events.map(labelWidth)) / 2 + 16, a.y - 22]], p.rows.join('\n'));
    } else if (span === 1 || span === -1) {
      // between facing sides; rows both ways are two curves apart
      const forward = span > 0;
      const bow = pairs.has(p.to + '\u0000' + p.from) ? (forward ? -6 : 6) : 0;
      const x1 = forward ? a.x + a.w : a.x;
      const x2 = forward ? b.x : b.x + b.w;
      const y1 = a.y + a.h / 2 + bow;
      const y2 = b.y + b.h / 2 + bow;
      const dx = (x2 - x1) / 2;
      const curve = [[x1, y1], [x1 + dx, y1 + 2 * bow], [x2 - dx, y2 + 2 * bow], [x2, y2]];
      draw(`M ${x1} ${y1} C ${curve[1][0]} ${curve[1][1]}, ${curve[2][0]} ${curve[2][1]}, ${x2} ${y2}`);
      place(p.events, along(curve), p.rows.join('\n'));
    } else if (span === 0) {
      // within a column: an arc on its right
      const right = columnLeft[a.column] + columnWidth[a.column];
      const down = row.get(p.to) > row.get(p.from);
      const x1 = a.x + a.w;
      const x2 = b.x + b.w;
      const y1 = a.y + a.h / 2 + (down ? 6 : -6);
      const y2 = b.y + b.h / 2 + (down ? -6 : 6);
      const out = right + 24 + 10 * Math.abs(row.get(p.to) - row.get(p.from));
      const curve = [[x1, y1], [out, y1], [out, y2], [x2, y2]];
      draw(`M ${x1} ${y1} C ${out} ${y1}, ${out} ${y2}, ${x2} ${y2}`);
      place(p.events, along(curve), p.rows.join('\n'));
      maxX = Math.max(maxX, out);
    } else {
      // along a lane: forward above the states, back below them
      const up = p.side === 'above';
      const k = p.lane.index;
      const lane = up ? statesTop - 16 - k * LANE : statesBottom + 16 + k * LANE;
      const shift = 10 + 7 * (k % 5);
      const points = [];
      if (up ? a.first : a.last) {
        const sx = a.x + a.w / 2 + (up ? 8 : -8);
        points.push([sx, up ? a.y : a.y + a.h], [sx, lane]);
      } else {
        const channel = up ? columnLeft[a.column] + columnWidth[a.column] + shift : columnLeft[a.column] - shift;
        points.push([up ? a.x + a.w : a.x, a.y + a.h / 2], [channel, a.y + a.h / 2], [channel, lane]);
      }
      if (up ? b.first : b.last) {
        const tx = b.x + b.w / 2 + (up ? -8 : 8);
        points.push([tx, lane], [tx, up ? b.y : b.y + b.h]);
      } else {
        const channel = up ? columnLeft[b.column] - shift : columnLeft[b.column] + columnWidth[b.column] + shift;
        points.push([channel, lane], [channel, b.y + b.h / 2], [up ? b.x : b.x + b.w, b.y + b.h / 2]);
      }
      draw(rounded(points, 7));
      const onLane = points.filter((pt) => pt[1] === lane).map((pt) => pt[0]);
      p.lane.from = Math.min(p.lane.from, ...onLane);
      p.lane.to = Math.max(p.lane.to, ...onLane);
      p.lane.y = lane;
    }
  }
  for (const side of [lanes.above, lanes.below]) {
    for (const l of side.values()) {
      place([l.text], [0.5, 0.3, 0.7, 0.15, 0.85].map((f) => [l.from + (l.to - l.from) * f, l.y]), l.rows.join('\n'));
    }
  }

  const nodes = svg('g', { class: 'nodes' });
  for (const n of names) {
    const s = states.get(n);
    const r = box.get(n);
    const classes = ['node'];
    if (s.ending) classes.push('ending-' + s.ending.toLowerCase());
    if (s.terminal) classes.push('terminal');
    if (s.running) classes.push('running');
    if (s.retired) classes.push('retired');
    if (n === options.current) classes.push('current');
    const g = svg('g', { class: classes.join(' '), 'data-state': n });
    g.append(svg('rect', { class: 'node-box', x: r.x, y: r.y, width: r.w, height: r.h, rx: 8 }));
    if (s.terminal) g.append(svg('rect', { class: 'node-inner', x: r.x + 3, y: r.y + 3, width: r.w - 6, height: r.h - 6, rx: 6 }));
    g.append(svg('text', { class: 'node-name', x: r.x + r.w / 2, y: r.y + (counts ? 20 : 24), 'text-anchor': 'middle', text: n }));
    if (counts) {
      const c = counts[n] || 0;
      g.append(svg('text', { class: 'node-count', x: r.x + r.w / 2, y: r.y + 38, 'text-anchor': 'middle', text: c + (c === 1 ? ' task' : ' tasks') }));
    }
    g.append(svg('title', { text: n + (s.terminal ? ' (terminal)' : '') + (s.ending ? ', ' + s.ending.toLowerCase() : '') }));
    nodes.append(options.links ? svg('a', { href: link('/tasks', { machine: def.name, state: n }) }, g) : g);
  }

  // the initial state's entry
  const start = box.get(def.initial);
  const entry = svg('g', { class: 'entry' },
    svg('circle', { cx: start.x - 26, cy: start.y + start.h / 2, r: 6 }),
    svg('path', { class: 'edge', d: `M ${start.x - 20} ${start.y + start.h / 2} L ${start.x} ${start.y + start.h / 2}`, 'marker-end': `url(#${marker})` }));

  const width = maxX + MARGIN;
  const height = maxY + MARGIN / 2;
  const root = svg('svg', {
    class: 'diagram', viewBox: `0 0 ${width} ${height}`, width, height,
    role: 'img', 'aria-label': 'state diagram of ' + def.name,
  });
  root.append(svg('defs', {},
    svg('marker', { id: marker, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }))));
  root.append(edges, entry, nodes, labels);
  return root;
}
