// The processes that serve the store (#/processes) and the attempts table of a task's page: both
// read the JSON API again at every poll. Ages and durations are the server's, on the engine's clock.

import { get } from './api.js';
import { el, fill, link, when } from './dom.js';
import { table, errorPanel } from './views.js';

/** Returns a duration in milliseconds as the page shows it, e.g. "850 ms", "12.4 s", "3 min 5 s". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return ms + ' ms';
  if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  const s = Math.round(ms / 1000);
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  if (s < 172800) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
}

function stateBadge(state) {
  return el('span', { class: 'process-state process-' + state, text: state });
}

function leaseList(p) {
  if (!p.leases.length) return el('span', { class: 'muted', text: 'none' });
  return el('span', {},
    p.leases.map((l) => el('a', {
      class: 'lease' + (l.expired ? ' expired' : ''), href: link('/task/' + l.id), dataset: { task: l.id },
      title: l.machine + ' · ' + l.state + ' · queue ' + l.queue + ' · expires ' + l.expiresAt + (l.expired ? ' (expired)' : ''),
      text: '#' + l.id,
    })),
    p.moreLeases ? el('span', { class: 'muted', text: ' and more' }) : null);
}

/** The Processes screen. */
export function processesView() {
  const body = el('tbody');
  const summary = el('p', { class: 'muted', id: 'process-counts' });
  const errors = el('div');
  const node = el('div', {},
    el('h1', { text: 'Processes' }),
    errors,
    el('section', { class: 'panel' },
      el('p', { class: 'muted', text: 'Every runtime that serves the store keeps a record: written when it starts, refreshed at each '
        + 'heartbeat, marked stopped by a graceful stop. One not seen for its gone-after time is gone: it crashed or lost the store.' }),
      summary,
      table(['Owner', 'Host', 'PID', 'Serves', 'Started', 'Last heartbeat', 'State', 'Leases'], body, { class: 'processes' })));
  return {
    node,
    async refresh() {
      const data = await get('/processes');
      errors.replaceChildren();
      summary.textContent = data.processes.length + ' process' + (data.processes.length === 1 ? '' : 'es') + ': '
        + data.counts.alive + ' alive, ' + data.counts.stopped + ' stopped, ' + data.counts.gone + ' gone';
      if (!data.processes.length) {
        fill(body, el('tr', {}, el('td', { colspan: 8, class: 'muted', text: 'No process has a record: no runtime runs on this store.' })));
        return;
      }
      fill(body, data.processes.map((p) => el('tr', { dataset: { owner: p.owner, state: p.state } },
        el('td', { class: 'process-owner' }, el('code', { text: p.owner })),
        el('td', { class: 'process-host', text: p.host || '—' }),
        el('td', { class: 'process-pid', text: p.pid === null ? '—' : p.pid }),
        el('td', { class: 'process-serves' },
          el('div', { text: p.machines.join(', ') || '—' }),
          el('div', { class: 'muted', text: p.queues.length ? 'queues ' + p.queues.join(', ') : '' })),
        el('td', { class: 'process-started' }, when(p.startedAt)),
        el('td', { class: 'process-seen', title: p.lastSeen, text: duration(p.lastSeenAgeMs) + ' ago' }),
        el('td', { class: 'process-state-cell' }, stateBadge(p.state),
          p.state === 'gone' ? el('div', { class: 'muted', text: 'not seen for over ' + duration(p.goneAfterMs) }) : null,
          p.stoppedAt ? el('div', { class: 'muted' }, 'at ', when(p.stoppedAt)) : null),
        el('td', { class: 'process-leases' }, el('span', { class: 'lease-count', text: p.leaseCount + (p.moreLeases ? '+' : '') }), ' ', leaseList(p)))));
    },
    fail(error) {
      fill(errors, errorPanel(error));
    },
  };
}

function attemptRow(a) {
  const error = a.error;
  let errorCell;
  if (!error) {
    errorCell = el('td', { class: 'attempt-error muted', text: '—' });
  } else {
    errorCell = el('td', { class: 'attempt-error' },
      el('strong', { class: 'error-code', text: error.code }), ' ', error.message,
      error.retryable ? el('span', { class: 'tag', text: 'retryable' }) : null,
      error.step ? el('span', { class: 'tag', text: 'step ' + error.step }) : null,
      error.detail ? el('details', { class: 'stack' }, el('summary', { text: 'Stack trace' }), el('pre', { class: 'stack-trace', text: error.detail })) : null);
  }
  const outcome = a.running ? el('span', { class: 'tag', text: 'running' })
    : el('span', {}, el('code', { text: a.outcome.event }), ' → ', a.outcome.to);
  return el('tr', { dataset: { attempt: a.number } },
    el('td', { class: 'attempt-number', text: a.number }),
    el('td', { class: 'attempt-started' }, when(a.startedAt)),
    el('td', { class: 'attempt-duration', text: duration(a.durationMs) + (a.running ? ' so far' : '') }),
    el('td', { class: 'attempt-worker' }, a.worker ? el('code', { text: a.worker }) : '—'),
    el('td', { class: 'attempt-outcome' }, outcome),
    errorCell);
}

/**
 * Returns the task page view with an Attempts panel under it: the view's node and refresh, and the
 * attempts read again with it. A stack trace left open stays open across polls.
 */
export function withAttempts(view, id) {
  const body = el('tbody');
  const panel = el('section', { class: 'panel', id: 'attempts' },
    el('h2', { text: 'Attempts' }),
    table(['#', 'Started', 'Duration', 'Worker', 'Outcome', 'Error'], body, { class: 'attempts' }));
  const node = el('div', {}, view.node, panel);
  let shown = '';
  return Object.assign({}, view, {
    node,
    async refresh() {
      const [, data] = await Promise.all([view.refresh(), get('/tasks/' + id + '/attempts')]);
      const text = JSON.stringify(data.attempts);
      if (text === shown) return;
      shown = text;
      const open = new Set([...body.querySelectorAll('details[open]')].map((d) => d.closest('tr').dataset.attempt));
      if (!data.attempts.length) {
        fill(body, el('tr', {}, el('td', { colspan: 6, class: 'muted', text: 'No attempt yet: the task was never claimed.' })));
        return;
      }
      fill(body, data.attempts.map(attemptRow));
      for (const d of body.querySelectorAll('details')) if (open.has(d.closest('tr').dataset.attempt)) d.open = true;
    },
  });
}
