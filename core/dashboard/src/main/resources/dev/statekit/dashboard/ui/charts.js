// The overview's activity charts: per queue, per minute of the last hour, what the store's history
// counts (every process's work). Inline SVG drawn here; every value is set as text or a number.

import { el, svg } from './dom.js';

/** Each series: its key in the API, its label, and what it counts. */
export const SERIES = [
  ['started', 'Started', 'attempts started: claims by a worker (the start event of a claim state of the run policy)'],
  ['succeeded', 'Succeeded', 'attempts that succeeded (the run policy\'s success event)'],
  ['failed', 'Failed', 'failures that ended the run (the fatal event, a retryable failure beyond the retry policy included, or the give-up after an interruption)'],
  ['retried', 'Retried', 'failures that will be tried again (the retryable event, a retry in place, or the requeue after an interruption)'],
];

const WIDTH = 600;
const HEIGHT = 140;
const LEFT = 34;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 20;

/** Returns the chart of one queue's activity: {queue, total, points: [{at, started, ...}]}. */
export function activityChart(q, minutes) {
  const points = q.points;
  let max = 1;
  for (const p of points) for (const [key] of SERIES) max = Math.max(max, p[key]);
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const x = (i) => LEFT + (points.length <= 1 ? plotW : (i * plotW) / (points.length - 1));
  const y = (v) => TOP + plotH - (v * plotH) / max;
  const grid = [0, max].map((v) => [
    svg('line', { x1: LEFT, x2: WIDTH - RIGHT, y1: y(v), y2: y(v), class: 'chart-grid' }),
    svg('text', { x: LEFT - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'chart-axis', text: String(v) }),
  ]);
  const axis = [
    svg('text', { x: LEFT, y: HEIGHT - 4, class: 'chart-axis', text: '-' + minutes + ' min' }),
    svg('text', { x: WIDTH - RIGHT, y: HEIGHT - 4, 'text-anchor': 'end', class: 'chart-axis', text: 'now' }),
  ];
  const lines = SERIES.map(([key, label]) => svg('polyline', {
    class: 'chart-line series-' + key,
    dataset: { series: key },
    fill: 'none',
    points: points.map((p, i) => x(i).toFixed(1) + ',' + y(p[key]).toFixed(1)).join(' '),
  }, svg('title', { text: label + ': ' + q.total[key] + ' in the last ' + minutes + ' minutes' })));
  const legend = el('ul', { class: 'chart-legend' }, SERIES.map(([key, label, what]) => el('li', {
    class: 'series-' + key, dataset: { series: key, total: q.total[key] }, title: what,
  }, el('span', { class: 'swatch' }), label + ' ', el('b', { class: 'series-total', text: String(q.total[key]) }))));
  return el('figure', { class: 'chart', dataset: { queue: q.queue } },
    el('figcaption', { text: q.queue }),
    svg('svg', { viewBox: '0 0 ' + WIDTH + ' ' + HEIGHT, role: 'img', class: 'chart-plot',
      'aria-label': 'activity of queue ' + q.queue + ' per minute over the last ' + minutes + ' minutes' },
    grid, axis, lines),
    legend);
}
