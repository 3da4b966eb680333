// A machine's diagram as SVG, laid out here from its states and rows: states in columns by their
// distance from the initial state, ordered within a column near their predecessors; rows forward
// as curves to the right, rows back (or within a column) as arcs, a row to its own state as a loop.

import { svg, link } from './dom.js';

const GAP_X = 120;
const GAP_Y = 30;
const MARGIN = 24;
const LEFT = 44;
const NODE_H = 38;
const NODE_H_COUNTS = 50;
let diagrams = 0;

function nodeWidth(name) {
  return Math.max(92, Math.round(name.length * 8.2) + 28);
}

function labelWidth(text) {
  return Math.round(text.length * 6.4) + 10;
}

/**
 * Returns the diagram of def ({states, transitions, initial, name}) as an <svg>.
 * options.current: the state to mark; options.counts: state name → tasks, shown in the nodes;
 * options.links: whether a state links to the list of its tasks.
 */
export function drawDiagram(def, options = {}) {
  const id = ++diagrams;
  const counts = options.counts || null;
  const nodeH = counts ? NODE_H_COUNTS : NODE_H;
  const names = def.states.map((s) => s.name);
  const order = new Map(names.map((n, i) => [n, i]));
  const states = new Map(def.states.map((s) => [s.name, s]));

  // columns: the shortest distance from the initial state; states it never reaches go last
  const next = new Map(names.map((n) => [n, []]));
  const previous = new Map(names.map((n) => [n, []]));
  for (const t of def.transitions) {
    if (t.from === t.to || !next.has(t.from) || !next.has(t.to)) continue;
    next.get(t.from).push(t.to);
    previous.get(t.to).push(t.from);
  }
  const column = new Map([[def.initial, 0]]);
  const queue = [def.initial];
  while (queue.length) {
    const n = queue.shift();
    for (const m of next.get(n) || []) {
      if (!column.has(m)) {
        column.set(m, column.get(n) + 1);
        queue.push(m);
      }
    }
  }
  const reached = Math.max(0, ...column.values());
  for (const n of names) if (!column.has(n)) column.set(n, reached + 1);
  const columns = [];
  for (const n of names) {
    const c = column.get(n);
    while (columns.length <= c) columns.push([]);
    columns[c].push(n);
  }
  // order within a column by the mean row of the state's predecessors in earlier columns
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

  // positions
  const rows = Math.max(...columns.map((c) => c.length));
  const pitch = nodeH + GAP_Y;
  const box = new Map();
  let x = LEFT;
  for (const c of columns) {
    const width = Math.max(...c.map(nodeWidth));
    const top = MARGIN + 40 + ((rows - c.length) * pitch) / 2;
    c.forEach((n, i) => {
      const w = nodeWidth(n);
      box.set(n, { x: x + (width - w) / 2, y: top + i * pitch, w, h: nodeH });
    });
    x += width + GAP_X;
  }
  const width = x - GAP_X + MARGIN;
  let minY = MARGIN;
  let maxY = MARGIN + 40 + rows * pitch;

  // one edge per pair of states, its label the events of its rows
  const pairs = new Map();
  for (const t of def.transitions) {
    if (!box.has(t.from) || !box.has(t.to)) continue;
    const key = t.from + '\u0000' + t.to;
    if (!pairs.has(key)) pairs.set(key, { from: t.from, to: t.to, events: [] });
    const label = t.event + (t.guard ? ' [' + t.guard + ']' : '');
    const events = pairs.get(key).events;
    if (!events.includes(label)) events.push(label);
  }

  const edges = svg('g', { class: 'edges' });
  const labels = svg('g', { class: 'edge-labels' });
  const marker = 'arrow-' + id;
  let arcs = 0;
  for (const p of pairs.values()) {
    const a = box.get(p.from);
    const b = box.get(p.to);
    const text = p.events.join(', ');
    let d;
    let lx;
    let ly;
    if (p.from === p.to) {
      const cx = a.x + a.w / 2;
      d = `M ${cx - 12} ${a.y} C ${cx - 34} ${a.y - 38}, ${cx + 34} ${a.y - 38}, ${cx + 12} ${a.y}`;
      lx = cx;
      ly = a.y - 34;
    } else if (column.get(p.to) > column.get(p.from)) {
      const x1 = a.x + a.w;
      const y1 = a.y + a.h / 2;
      const x2 = b.x;
      const y2 = b.y + b.h / 2;
      const dx = Math.max(40, (x2 - x1) / 2);
      d = `M ${x1} ${y1} C ${x1 + dx} ${y1}, ${x2 - dx} ${y2}, ${x2} ${y2}`;
      lx = (x1 + x2) / 2;
      ly = (y1 + y2) / 2;
    } else {
      // back or within a column: an arc below the lower of the two, or above when both are near the top
      arcs++;
      const above = (row.get(p.from) + row.get(p.to)) / 2 < (rows - 1) / 2;
      const x1 = a.x + a.w / 2 + (above ? 8 : -8);
      const x2 = b.x + b.w / 2 + (above ? -8 : 8);
      const y1 = above ? a.y : a.y + a.h;
      const y2 = above ? b.y : b.y + b.h;
      const bend = 30 + 12 * (arcs % 4);
      const yc = above ? Math.min(y1, y2) - bend - 10 : Math.max(y1, y2) + bend + 10;
      d = `M ${x1} ${y1} C ${x1} ${yc}, ${x2} ${yc}, ${x2} ${y2}`;
      lx = (x1 + x2) / 2;
      ly = (y1 + y2) / 8 + (yc * 3) / 4;
      minY = Math.min(minY, yc - 12);
      maxY = Math.max(maxY, yc + 12);
    }
    edges.append(svg('path', { d, class: 'edge', 'marker-end': `url(#${marker})` }));
    const w = labelWidth(text);
    labels.append(svg('g', { class: 'edge-label' },
      svg('rect', { x: lx - w / 2, y: ly - 8, width: w, height: 16, rx: 3 }),
      svg('text', { x: lx, y: ly + 4, 'text-anchor': 'middle', text })));
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
    if (options.links) {
      nodes.append(svg('a', { href: link('/tasks', { machine: def.name, state: n }) }, g));
    } else {
      nodes.append(g);
    }
  }

  // the initial state's entry
  const start = box.get(def.initial);
  const entry = svg('g', { class: 'entry' },
    svg('circle', { cx: start.x - 26, cy: start.y + start.h / 2, r: 6 }),
    svg('path', { class: 'edge', d: `M ${start.x - 20} ${start.y + start.h / 2} L ${start.x} ${start.y + start.h / 2}`, 'marker-end': `url(#${marker})` }));

  const height = maxY - minY + MARGIN;
  const root = svg('svg', {
    class: 'diagram', viewBox: `0 ${minY - MARGIN / 2} ${width} ${height}`, width, height,
    role: 'img', 'aria-label': 'state diagram of ' + def.name,
  });
  root.append(svg('defs', {},
    svg('marker', { id: marker, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }))));
  root.append(edges, entry, nodes, labels);
  return root;
}
