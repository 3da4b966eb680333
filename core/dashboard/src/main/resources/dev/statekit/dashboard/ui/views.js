// The dashboard's pages. Each returns {node, refresh, fail?}: node is built once, refresh reads the
// API and fills the parts that change (a read issued later always wins over an earlier one), so
// inputs keep their focus and what is typed while the page updates.

import { get, post } from './api.js';
import { el, fill, link, when, since, refreshAgo } from './dom.js';
import { drawDiagram } from './diagram.js';
import { activityChart, SERIES } from './charts.js';

/** Returns a refresh that reads with fetch and shows with render, showing only the newest read. */
export function sequenced(fetch, render) {
  // (render is called with every newest read; parts of a page redraw only when their data changed)
  let issued = 0;
  let shown = 0;
  return async () => {
    const n = ++issued;
    const data = await fetch();
    if (n < shown) return;
    shown = n;
    render(data);
  };
}

/** Returns a drawer that fills node with build(data) only when data differs from what it shows. */
export function keyed(node, build) {
  let shown;
  return (data) => {
    const key = JSON.stringify(data);
    if (key === shown) return;
    shown = key;
    fill(node, build(data));
  };
}

/** A table; a header is its text, or [text, what the column counts] shown as the header's tooltip. */
export function table(headers, body, props = {}) {
  return el('table', props, el('thead', {}, el('tr', {}, headers.filter((h) => h !== null)
    .map((h) => (Array.isArray(h) ? el('th', { text: h[0], title: h[1], class: 'explained' }) : el('th', { text: h }))))), body);
}

/** What each figure of the overview counts: the tooltip of its column and the caption under its table. */
const QUEUE_FIGURES = [
  ['Running', 'tasks holding a lease: a worker of some process runs them (expired leases not yet recovered included)'],
  ['Waiting', 'tasks a worker would claim and none holds: in a state the run policy claims from, a retry\'s back-off included; never a finished task'],
  ['Oldest waiting', 'how long the longest-waiting of those has been ready (since the later of its last change and its not-before time)'],
  ['Active', 'tasks not in a terminal state: waiting, running, held, or waiting for a user'],
  ['Finished', 'tasks in a terminal state, kept until retention deletes them'],
];

function stateBadge(state, ending, extra = {}) {
  const classes = ['state'];
  if (ending) classes.push('ending-' + ending.toLowerCase());
  return el('span', Object.assign({ class: classes.join(' '), text: state }, extra));
}

function endingOf(def, state) {
  if (!def) return null;
  const s = def.states.find((x) => x.name === state);
  return s ? s.ending : null;
}

/** Shows the outcome of a change in node: what changed, or the refusal's error_code, message and what is allowed instead. */
export function report(node, outcome) {
  node.classList.remove('ok', 'error');
  if (outcome.error) {
    const e = outcome.error;
    node.classList.add('error');
    node.dataset.errorCode = e.code;
    fill(node, el('strong', { class: 'error-code', text: e.code }), ' ', e.message,
      e.allowed ? el('span', { class: 'allowed', text: ' · allowed now: ' + (e.allowed.length ? e.allowed.join(', ') : 'nothing') }) : null);
  } else {
    node.classList.add('ok');
    delete node.dataset.errorCode;
    fill(node, outcome.text);
  }
}

export function describeError(error) {
  return { code: error.code || 'ERROR', message: error.message || String(error), allowed: error.allowed || null };
}

export function errorPanel(error) {
  const e = describeError(error);
  return el('div', { class: 'panel message error', role: 'alert' }, el('strong', { class: 'error-code', text: e.code }), ' ', e.message);
}

// --- overview ---------------------------------------------------------------------------------

/** The overview: the queues with their controls, and every machine's tasks counted by state. */
export function overviewView(app) {
  const queueBody = el('tbody');
  const queueMessage = el('p', { class: 'message', id: 'queue-message', role: 'status' });
  const waitingFrom = el('dd', { id: 'waiting-from' });
  const machineBox = el('div', { class: 'machines' });
  const activityBox = el('div', { class: 'charts', id: 'activity-charts' });
  const rows = new Map();
  const node = el('div', {},
    el('h1', { text: 'Overview' }),
    el('section', { class: 'panel' },
      el('h2', { text: 'Queues' }),
      table(['Queue', 'State', ...QUEUE_FIGURES, 'Concurrency limit', app.readOnly ? null : 'Controls'],
        queueBody, { class: 'queues' }),
      el('dl', { class: 'captions', id: 'queue-captions' }, QUEUE_FIGURES.map(([name, what]) => [el('dt', { text: name }), el('dd', { text: what })]),
        el('dt', { text: 'Counted by' }), waitingFrom),
      queueMessage),
    el('section', { class: 'panel', id: 'activity' },
      el('h2', { text: 'Activity, last hour' }),
      activityBox,
      el('dl', { class: 'captions', id: 'activity-captions' },
        el('dt', { text: 'Counted from' }), el('dd', { text: 'the store\'s history: the work of every process sharing the store, per minute, read every ' + ACTIVITY_MS / 1000 + ' seconds (tasks archived or deleted since are not counted)' }),
        SERIES.map(([, name, what]) => [el('dt', { text: name }), el('dd', { text: what })]))),
    el('h2', { text: 'Machines' }),
    machineBox);

  function queueRow(name) {
    const cells = {
      state: el('td', { class: 'queue-state' }),
      leased: el('td', { class: 'num queue-leased' }),
      waiting: el('td', { class: 'num queue-waiting' }),
      oldest: el('td', { class: 'queue-oldest' }),
      active: el('td', { class: 'num queue-active' }),
      finished: el('td', { class: 'num queue-finished' }),
      limit: el('td', { class: 'queue-limit' }),
    };
    const tr = el('tr', { dataset: { queue: name } }, el('td', { class: 'queue-name' }, el('a', { href: link('/tasks', { queue: name }), text: name })),
      cells.state, cells.leased, cells.waiting, cells.oldest, cells.active, cells.finished, cells.limit);
    const row = { tr, cells, update: null };
    if (app.readOnly) {
      row.update = (q) => fillQueue(row, q);
      return row;
    }
    const input = el('input', { type: 'number', min: 0, max: 10000, step: 1, class: 'limit-input', 'aria-label': 'concurrency limit of ' + name });
    input.addEventListener('input', () => {
      input.dataset.dirty = 'true';
    });
    const buttons = {
      pause: el('button', { type: 'button', dataset: { action: 'pause' }, text: 'Pause' }),
      resume: el('button', { type: 'button', dataset: { action: 'resume' }, text: 'Resume' }),
      stop: el('button', { type: 'button', dataset: { action: 'stop-after-current' }, text: 'Stop after current' }),
      set: el('button', { type: 'submit', dataset: { action: 'concurrency' }, text: 'Set limit' }),
    };
    const act = async (action, body, label) => {
      for (const b of Object.values(buttons)) b.disabled = true;
      try {
        const q = await post('/queues/' + encodeURIComponent(name) + '/' + action, body);
        delete input.dataset.dirty;
        report(queueMessage, { text: name + ': ' + label + ' (' + queueStateText(q) + ', limit ' + limitText(q.concurrency) + ')' });
        row.update(q);
      } catch (error) {
        report(queueMessage, { error: describeError(error) });
      } finally {
        app.again();
      }
    };
    buttons.pause.addEventListener('click', () => act('pause', {}, 'paused'));
    buttons.resume.addEventListener('click', () => act('resume', {}, 'resumed'));
    buttons.stop.addEventListener('click', () => act('stop-after-current', {}, 'stops after the tasks running now'));
    const form = el('form', { class: 'inline', on: { submit: (e) => {
      e.preventDefault();
      const limit = Number(input.value);
      if (!Number.isInteger(limit) || limit < 0) {
        report(queueMessage, { error: { code: 'INVALID_FIELD', message: 'the limit is a whole number, 0 for none' } });
        return;
      }
      act('concurrency', { limit }, 'concurrency limit set');
    } } }, input, buttons.set);
    tr.append(el('td', { class: 'controls' }, buttons.pause, buttons.resume, buttons.stop, form));
    row.update = (q) => {
      fillQueue(row, q);
      buttons.pause.disabled = q.paused;
      buttons.stop.disabled = q.paused;
      buttons.resume.disabled = !q.paused;
      buttons.set.disabled = false;
      if (document.activeElement !== input && !input.dataset.dirty) input.value = String(q.concurrency);
    };
    return row;
  }

  function render(o) {
    app.overview = o;
    waitingFrom.textContent = o.waitingFrom === 'runtime'
      ? 'Waiting and oldest waiting: the runtime\'s metrics (the runnable tasks of the machines it serves).'
      : 'Waiting and oldest waiting: the unleased tasks in the claim states of each machine\'s run policy.';
    for (const q of o.queues) {
      if (!rows.has(q.name)) {
        const row = queueRow(q.name);
        rows.set(q.name, row);
        queueBody.append(row.tr);
      }
      rows.get(q.name).update(q);
    }
    if (o.queues.length === 0 && queueBody.childElementCount === 0) {
      queueBody.append(el('tr', {}, el('td', { colspan: 9, class: 'muted', text: 'This service has no queues.' })));
    }
    drawMachines(o.machines);
    refreshAgo(node);
  }
  const drawMachines = keyed(machineBox, (machines) => machines.map(machineCard));
  const drawActivity = keyed(activityBox, (a) => (a.queues.length === 0
    ? el('p', { class: 'muted', text: 'No work started, succeeded, failed or retried in the last hour.' })
    : a.queues.map((q) => activityChart(q, a.minutes))));
  const overview = sequenced(() => get('/overview'), render);
  const activity = sequenced(() => get('/activity'), (a) => drawActivity({ minutes: 60, queues: a.queues }));
  let activityRead = 0;

  return { node, refresh: () => {
    const reads = [overview()];
    if (Date.now() - activityRead >= ACTIVITY_MS) {
      activityRead = Date.now();
      reads.push(activity().catch((error) => {
        activityRead = 0;
        throw error;
      }));
    }
    return Promise.all(reads);
  } };
}

/** How often the overview reads the activity again: it counts the store's history, a costlier read than the counts. */
const ACTIVITY_MS = 10000;

function queueStateText(q) {
  if (!q.paused) return 'running';
  return q.pauseReason === 'STOP_AFTER_CURRENT' ? 'paused: stop after current' : 'paused';
}

function limitText(n) {
  return n === 0 ? 'no limit' : String(n);
}

function fillQueue(row, q) {
  row.tr.dataset.state = q.paused ? 'paused' : 'running';
  row.tr.dataset.concurrency = String(q.concurrency);
  fill(row.cells.state, el('span', { class: 'queue-badge ' + (q.paused ? 'paused' : 'running'), text: queueStateText(q) }));
  row.cells.leased.textContent = String(q.leased);
  row.cells.waiting.textContent = String(q.waiting);
  row.cells.active.textContent = String(q.active);
  row.cells.finished.textContent = String(q.finished);
  fill(row.cells.oldest, q.oldestWaiting ? since(q.oldestWaiting) : '—');
  row.cells.limit.textContent = limitText(q.concurrency);
}

function machineCard(m) {
  const body = el('tbody', {}, m.states.map((s) => el('tr', { class: s.tasks ? '' : 'zero', dataset: { state: s.name } },
    el('td', {},
      el('a', { href: link('/tasks', { machine: m.name, state: s.name }) }, stateBadge(s.name, s.ending)),
      s.initial ? el('span', { class: 'tag', text: 'initial' }) : null,
      s.terminal ? el('span', { class: 'tag', text: 'terminal' }) : null,
      s.unknown ? el('span', { class: 'tag warn', text: 'not in this version' }) : null),
    el('td', { class: 'num count', text: String(s.tasks) }),
    el('td', { class: 'num', text: s.leased ? String(s.leased) : '' }),
    el('td', {}, s.claimable ? since(s.oldestReady) : el('span', { class: 'muted', title: 'no worker claims tasks in this state', text: '·' })))));
  return el('section', { class: 'panel machine', dataset: { machine: m.name } },
    el('h3', {}, el('a', { href: link('/machine/' + encodeURIComponent(m.name)), text: m.name }), el('span', { class: 'muted', text: ' v' + m.version })),
    m.description ? el('p', { class: 'muted', text: m.description }) : null,
    el('p', {}, el('a', { href: link('/tasks', { machine: m.name }), text: m.total + (m.total === 1 ? ' task' : ' tasks') }),
      m.children ? el('span', { class: 'muted', text: ' · parents of ' + m.children + ' tasks' }) : null),
    table(['State', ['Tasks', 'tasks of the machine in the state, on every queue'], ['Leased', 'of them, tasks a worker holds'],
      ['Oldest waiting', 'in a state a worker claims from: how long the longest-waiting unleased task has been ready; other states have none']],
    body, { class: 'counts' }));
}

// --- the list of tasks ------------------------------------------------------------------------

const FILTERS = ['machine', 'state', 'queue', 'parent', 'q'];

/** The tasks filtered by machine, state, queue and parent, and searched for q; all kept in the hash. */
export function tasksView(app, params) {
  const o = app.overview || { machines: [], queues: [] };
  const current = {};
  for (const f of FILTERS) current[f] = params[f] || '';
  const after = params.after || '';

  const go = (changes) => {
    const next = Object.assign({}, current, changes);
    if (!('after' in changes)) next.after = '';
    location.hash = link('/tasks', next);
  };

  const machineSelect = el('select', { name: 'machine', 'aria-label': 'machine' }, el('option', { value: '', text: 'every machine' }),
    o.machines.map((m) => el('option', { value: m.name, text: m.name, selected: m.name === current.machine })));
  const machine = o.machines.find((m) => m.name === current.machine);
  const stateNames = machine ? machine.states.map((s) => s.name) : [...new Set(o.machines.flatMap((m) => m.states.map((s) => s.name)))];
  if (current.state && !stateNames.includes(current.state)) stateNames.push(current.state);
  const stateSelect = el('select', { name: 'state', 'aria-label': 'state' }, el('option', { value: '', text: 'any state' }),
    stateNames.map((s) => el('option', { value: s, text: s, selected: s === current.state })));
  const queueNames = o.queues.map((q) => q.name);
  if (current.queue && !queueNames.includes(current.queue)) queueNames.push(current.queue);
  const queueSelect = el('select', { name: 'queue', 'aria-label': 'queue' }, el('option', { value: '', text: 'any queue' }),
    queueNames.map((q) => el('option', { value: q, text: q, selected: q === current.queue })));
  const parentInput = el('input', { name: 'parent', type: 'text', inputmode: 'numeric', placeholder: 'parent id', value: current.parent, size: 8, 'aria-label': 'parent id' });
  const searchInput = el('input', { name: 'q', type: 'search', placeholder: 'search ids, attributes, keys, errors', value: current.q, 'aria-label': 'search', maxlength: 200 });
  for (const s of [machineSelect, stateSelect, queueSelect]) {
    s.addEventListener('change', () => go({ [s.name]: s.value, ...(s === machineSelect ? { state: '' } : {}) }));
  }
  const form = el('form', { class: 'filters', role: 'search', on: { submit: (e) => {
    e.preventDefault();
    go({ q: searchInput.value.trim(), parent: parentInput.value.trim() });
  } } }, machineSelect, stateSelect, queueSelect, parentInput, searchInput,
  el('button', { type: 'submit', text: 'Search' }), el('a', { href: '#/tasks', class: 'button-link', text: 'Clear' }));

  const body = el('tbody');
  const status = el('p', { class: 'muted', id: 'list-status' });
  const pager = el('p', { class: 'pager' });
  const jump = /^[0-9]{1,18}$/.test(current.q) ? el('p', {}, el('a', { href: link('/task/' + current.q), text: 'Open task #' + current.q })) : null;
  const errors = el('div');
  const bulk = app.readOnly ? null : bulkLink(current);
  const node = el('div', {},
    el('h1', { text: 'Tasks' }),
    form, jump, errors, bulk,
    el('section', { class: 'panel' }, table(['ID', 'Machine', 'State', 'Queue', 'Attempts', 'Updated', 'Attributes', 'Last error'], body, { class: 'tasks' }), status, pager));

  const query = {};
  for (const f of FILTERS) if (current[f]) query[f] = current[f];
  if (after) query.after = after;
  const path = '/tasks?' + new URLSearchParams(query).toString();

  const drawRows = keyed(body, (page) => page.items.length === 0
    ? el('tr', {}, el('td', { colspan: 8, class: 'muted', text: 'No task matches.' }))
    : page.items.map((t) => el('tr', { dataset: { id: t.id } },
      el('td', {}, el('a', { href: link('/task/' + t.id), text: '#' + t.id })),
      el('td', { text: t.machine }),
      el('td', {}, stateBadge(t.state, endingOf(app.machines.get(t.machine), t.state)), t.lease ? el('span', { class: 'tag', text: 'leased' }) : null),
      el('td', { text: t.queue }),
      el('td', { class: 'num', text: String(t.attempts) }),
      el('td', {}, when(t.updatedAt)),
      el('td', { class: 'attrs' }, Object.entries(t.attributes).map(([k, v]) => el('span', { class: 'kv' }, el('span', { class: 'k', text: k }), '=', el('span', { class: 'v', text: v }))),
        t.moreAttributes ? el('span', { class: 'muted', text: '+' + t.moreAttributes }) : null),
      el('td', { class: 'error-code', text: t.lastErrorCode || '' }))));

  function render(page) {
    errors.replaceChildren();
    drawRows({ items: page.items, known: page.items.map((t) => !!app.machines.get(t.machine)) });
    status.textContent = page.items.length + (page.items.length === 1 ? ' task' : ' tasks') + (after ? ' after #' + after : '')
      + (current.q ? ' found among ' + page.scanned + ' read' : '');
    drawPager(page.nextAfter);
  }
  const drawPager = keyed(pager, (nextAfter) => [
    after ? el('a', { href: link('/tasks', current), text: '← first page' }) : null,
    after && nextAfter ? ' · ' : null,
    nextAfter ? el('a', { href: link('/tasks', Object.assign({}, current, { after: nextAfter })), text: 'next page →' }) : null]);

  // the machines' definitions colour the states by how they end
  for (const m of o.machines) app.machine(m.name).catch(() => {});
  const refresh = sequenced(() => get(path), render);
  return {
    node,
    refresh,
    fail: (error) => fill(errors, errorPanel(error)),
  };
}

const BULK_FILTERS = ['machine', 'state', 'queue', 'parent'];

/** A link to the bulk actions over the task list's filter (a machine, and a state, queue and parent if chosen). */
function bulkLink(current) {
  const filter = {};
  for (const f of BULK_FILTERS) if (current[f]) filter[f] = current[f];
  const usable = !!current.machine && !current.q;
  return el('p', { class: 'bulk-link', id: 'bulk' }, usable
    ? el('a', { href: link('/bulk', filter), text: 'Retry, cancel or delete every task of this filter…' })
    : el('span', { class: 'muted', text: 'Choose a machine, without a search, to act on every task the filter selects (Bulk actions).' }));
}

// --- one task ---------------------------------------------------------------------------------

/** How many children a parent's page lists at a time. */
const CHILDREN_PAGE = 20;

/** A task: its fields, actions, a parent's progress, its machine's diagram and its history. */
export function taskView(app, id) {
  const heading = el('h1', {}, 'Task #' + id);
  const stateBox = el('span', { id: 'task-state-box' });
  const errors = el('div');
  const actions = el('div', { class: 'actions', id: 'actions' });
  const result = el('p', { class: 'message', id: 'action-result', role: 'status' });
  const details = el('dl', { class: 'details', id: 'details' });
  const lastError = el('div', { id: 'last-error' });
  const lastErrorTitle = el('h3', { id: 'last-error-title', text: 'Last error' });
  const current = el('div', { id: 'current-error' });
  const attributes = el('tbody', { id: 'attributes' });
  const payload = el('div', { id: 'payload' });
  const children = el('section', { class: 'panel', id: 'children', hidden: true });
  const diagramBox = el('div', { class: 'diagram-box', id: 'diagram' });
  const timeline = el('ol', { class: 'timeline', id: 'history' });
  const node = el('div', { class: 'task' },
    el('div', { class: 'title' }, heading, stateBox),
    errors,
    current,
    el('section', { class: 'panel' }, el('h2', { text: 'Actions' }), actions, result),
    children,
    el('div', { class: 'columns' },
      el('section', { class: 'panel' }, el('h2', { text: 'Task' }), details, lastErrorTitle, lastError),
      el('section', { class: 'panel' }, el('h2', { text: 'Attributes' }), table(['Key', 'Value'], attributes, { class: 'attributes' }), payload)),
    el('section', { class: 'panel' }, el('h2', { text: 'Machine' }), diagramBox),
    el('section', { class: 'panel' }, el('h2', { text: 'History' }), timeline));

  let shownEvents = null;
  let progressParts = null;
  let childMachine = null;
  /** The children shown: a state filter ('' for all, or states separated by commas), the page's start, and whether the user chose. */
  const childView = { filter: '', after: '', chosen: false };
  const progressDef = () => (childMachine ? app.machines.get(childMachine) : null);
  let busy = false;

  const confirmBox = el('div', { class: 'bulk-confirm', id: 'action-confirm' });

  /** Asks before an event that deletes, naming what it deletes; only Yes sends it. */
  const ask = (a) => {
    if (busy) return;
    result.replaceChildren();
    fill(confirmBox,
      el('p', { class: 'question', id: 'action-question', text: a.title + ' deletes ' + a.deletes + ', for good. Go on?' }),
      el('p', {},
        el('button', { type: 'button', class: 'confirm', dataset: { confirm: a.event }, text: 'Yes, ' + a.title.toLowerCase() + ' and delete',
          on: { click: () => {
            confirmBox.replaceChildren();
            fire(a.event, a.title);
          } } }),
        ' ',
        el('button', { type: 'button', class: 'dismiss', text: 'No, change nothing', on: { click: () => {
          confirmBox.replaceChildren();
          report(result, { text: a.title + ' not sent: nothing changed.' });
        } } })));
  };

  const fire = async (event, title = event) => {
    if (busy) return;
    busy = true;
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    try {
      const r = await post('/tasks/' + id + '/events', { event });
      report(result, { text: title + ': now ' + r.state + (r.replayed ? ' (already done)' : '') });
    } catch (error) {
      report(result, { error: describeError(error) });
    } finally {
      busy = false;
      for (const b of actions.querySelectorAll('button')) b.disabled = false;
      app.again();
    }
  };

  function button(a) {
    return el('button', { type: 'button', class: 'event' + (a.deletes ? ' danger' : '') + (a.allowed ? '' : ' refused'), dataset: { event: a.event },
      title: a.event + (a.label ? ' · ' + a.label : ''), on: { click: () => (a.deletes ? ask(a) : fire(a.event, a.title)) } },
    el('span', { class: 'event-title', text: a.title + (a.deletes ? '…' : '') }), a.label ? el('span', { class: 'event-label', text: a.label }) : null);
  }

  function renderActions(t) {
    const key = t.state + ':' + JSON.stringify(t.actions);
    if (key === shownEvents) return;
    shownEvents = key;
    confirmBox.replaceChildren();
    if (app.readOnly) {
      fill(actions, el('p', { class: 'muted', text: 'Read-only dashboard: it changes nothing.' }));
    } else if (t.actions.length === 0) {
      fill(actions, el('p', { class: 'muted', text: 'No user event is allowed in ' + t.state + '.' }));
    } else {
      const now = t.actions.filter((a) => a.allowed);
      const refused = t.actions.filter((a) => !a.allowed);
      fill(actions,
        now.length ? el('div', { class: 'allowed-now' }, now.map(button))
          : el('p', { class: 'muted', text: 'No user event is allowed now.' }),
        refused.length ? el('div', { class: 'refused-now', id: 'refused-now' },
          el('p', { class: 'muted', text: 'Not allowed now (the table has the row, its guard refuses):' }),
          el('ul', {}, refused.map((a) => el('li', { dataset: { event: a.event } }, button(a), ' ',
            el('span', { class: 'error-code', text: a.refusal.code }), ' ', el('span', { class: 'refusal-message', text: a.refusal.message }))))) : null,
        confirmBox);
    }
  }

  function row(term, ...value) {
    return [el('dt', { text: term }), el('dd', {}, ...value)];
  }

  const drawState = keyed(stateBox, (t) => [stateBadge(t.state, t.ending, { id: 'task-state' }),
    t.terminal ? el('span', { class: 'tag', text: 'terminal' }) : null,
    t.archived ? el('span', { class: 'tag', text: 'archived' }) : null]);

  const drawDetails = keyed(details, (t) => [
    row('Machine', el('a', { href: link('/machine/' + encodeURIComponent(t.machine)), text: t.machine }), ' v' + t.machineVersion),
    row('Queue', el('a', { href: link('/tasks', { queue: t.queue }), text: t.queue })),
    row('Parent', t.parentId ? el('a', { href: link('/task/' + t.parentId), text: '#' + t.parentId }) : '—'),
    row('Attempts', String(t.attempts)),
    row('Retries', String(t.retries)),
    row('Priority', String(t.priority)),
    row('Lease', t.lease ? el('span', { class: 'lease' }, el('span', { text: t.lease.owner }), ' · token ' + t.lease.fencingToken + ' · expires ', when(t.lease.expiresAt)) : 'none'),
    row('Not before', when(t.notBefore)),
    row('Idempotency key', t.idempotencyKey ? el('code', { text: t.idempotencyKey }) : '—'),
    row('Created', when(t.createdAt)),
    row('Updated', when(t.updatedAt)),
    row('Version', String(t.version))]);

  const drawError = keyed(lastError, (e) => (e
    ? el('dl', { class: 'details error-details' },
      row('Code', el('span', { class: 'error-code', text: e.code })),
      row('Message', el('span', { class: 'error-message', text: e.message })),
      row('Retryable', e.retryable ? 'yes' : 'no'),
      row('Step', e.step || '—'))
    : el('p', { class: 'muted', text: 'none' })));

  const drawCurrent = keyed(current, ({ error, blocking, state }) => {
    const all = (error ? [error] : []).concat(blocking);
    if (all.length === 0) return null;
    return el('section', { class: 'panel message error current-error', role: 'alert' },
      el('h2', { text: error ? 'Error: the task is ' + state + ' because of it' : 'Blocked: ' + state + ', but it cannot go on' }),
      all.map((e) => el('p', { class: 'blocking' }, el('strong', { class: 'error-code', text: e.code }), ' ',
        el('span', { class: 'error-message', text: e.message }), e.step ? el('span', { class: 'muted', text: ' · step ' + e.step }) : null)));
  });

  const drawAttributes = keyed(attributes, (values) => {
    const entries = Object.entries(values);
    return entries.length ? entries.map(([k, v]) => el('tr', {}, el('td', { class: 'k', text: k }), el('td', { class: 'v' }, el('pre', { text: v }))))
      : el('tr', {}, el('td', { colspan: 2, class: 'muted', text: 'none' }));
  });

  const drawPayload = keyed(payload, (text) => (text ? [el('h3', { text: 'Payload' }), el('pre', { class: 'payload', text })] : null));

  const drawTimeline = keyed(timeline, (history) => (history.length === 0 ? el('li', { class: 'muted', text: 'No change yet.' })
    : history.map((h) => el('li', { class: 'source-' + h.source.toLowerCase() },
      el('div', { class: 'when' }, when(h.at)),
      el('div', { class: 'what' },
        el('span', { class: 'transition' }, el('span', { text: h.from }), ' → ', el('span', { text: h.to })),
        ' ', el('span', { class: 'event', text: h.event }),
        ' ', el('span', { class: 'by', text: 'by ' + h.source.toLowerCase() + (h.actor ? ' ' + h.actor : '') }),
        h.reason ? el('div', { class: 'reason', text: h.reason }) : null,
        h.commandKey ? el('div', { class: 'muted', text: 'command ' + h.commandKey }) : null),
      el('div', { class: 'version', text: 'v' + h.version })))));

  const drawDiagramOf = keyed(diagramBox, ({ def, state }) => [drawDiagram(def, { current: state }),
    el('p', {}, el('a', { href: link('/machine/' + encodeURIComponent(def.name)), text: 'the machine, its rows and its tasks →' }))]);

  function renderDetails(t, def) {
    heading.textContent = t.machine + ' #' + t.id;
    drawState(t);
    const fields = Object.assign({}, t);
    delete fields.history;
    delete fields.progress;
    delete fields.attributes;
    delete fields.userEvents;
    drawDetails(fields);
    drawError(t.lastError);
    lastErrorTitle.textContent = !t.lastError ? 'Last error' : t.lastErrorHolds ? 'Last error (current)' : 'Last error (resolved)';
    lastError.classList.toggle('resolved', !!t.lastError && !t.lastErrorHolds);
    drawCurrent({ error: t.currentError, blocking: t.blockingErrors || [], state: t.state });
    drawAttributes(t.attributes);
    drawPayload(t.payload);
    if (def) drawDiagramOf({ def, state: t.state });
  }

  function progressSection(t) {
    const bar = el('div', { class: 'progress', id: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': 0 });
    const parts = {};
    for (const k of ['succeeded', 'failed', 'cancelled', 'running']) {
      parts[k] = el('div', { class: 'bar bar-' + k });
      bar.append(parts[k]);
    }
    const percent = el('span', { id: 'progress-percent', class: 'percent' });
    const summary = el('span', { class: 'muted', id: 'progress-summary' });
    const byState = el('tbody', { id: 'children-by-state' });
    const list = el('tbody', { id: 'children-list' });
    const chips = el('p', { class: 'chips', id: 'children-filter', role: 'group', 'aria-label': 'children by state' });
    const listStatus = el('p', { class: 'muted', id: 'children-status' });
    const pager = el('p', { class: 'pager', id: 'children-pager' });
    const message = el('p', { class: 'message', id: 'children-result', role: 'status' });
    const retry = el('button', { type: 'button', id: 'retry-failed-children', text: 'Retry failed children' });
    retry.addEventListener('click', async () => {
      retry.disabled = true;
      try {
        const r = await post('/tasks/' + id + '/retry-failed-children', {});
        const n = r && typeof r.retried === 'number' ? r.retried : null;
        report(message, { text: n === null ? 'failed children retried' : 'retried ' + n + (n === 1 ? ' failed child' : ' failed children') });
      } catch (error) {
        report(message, { error: describeError(error) });
      } finally {
        app.again();
      }
    });
    fill(children,
      el('h2', { text: 'Children' }),
      el('div', { class: 'progress-line' }, bar, percent),
      el('p', {}, summary),
      app.readOnly ? null : el('p', {}, retry),
      message,
      el('div', { class: 'columns' },
        el('div', {}, el('h3', { text: 'By state' }), table(['State', 'Children'], byState, { class: 'counts' })),
        el('div', {}, el('h3', {}, 'Children ', el('a', { href: link('/tasks', { machine: t.children, parent: t.id }), text: '(in the task list)' })),
          chips,
          table(['ID', 'State', 'Attempts', 'Last error'], list, { class: 'tasks' }), listStatus, pager)));
    children.hidden = false;
    const childDef = () => app.machines.get(t.children);
    const drawByState = keyed(byState, (counts) => Object.entries(counts).filter(([, n]) => n > 0).map(([s, n]) => el('tr', { dataset: { state: s } },
      el('td', {}, el('a', { href: link('/tasks', { machine: t.children, parent: t.id, state: s }) }, stateBadge(s, endingOf(childDef(), s)))),
      el('td', { class: 'num', text: String(n) }))));
    const choose = (filter) => {
      childView.filter = filter;
      childView.after = '';
      childView.chosen = true;
      app.again();
    };
    const chip = (filter, text, n, extra) => el('button', { type: 'button', class: 'chip' + (childView.filter === filter ? ' active' : '') + (extra || ''),
      dataset: { filter: filter || 'all' }, 'aria-pressed': childView.filter === filter ? 'true' : 'false', text: text + ' (' + n + ')',
      on: { click: () => choose(filter) } });
    const drawChips = keyed(chips, ({ counts, total, failed }) => [
      chip('', 'All', total),
      failed.length > 1 ? chip(failed.join(','), 'Failed', failed.reduce((a, s) => a + (counts[s] || 0), 0), ' chip-failed') : null,
      Object.entries(counts).filter(([, n]) => n > 0)
        .sort(([a], [b]) => (failed.includes(b) ? 1 : 0) - (failed.includes(a) ? 1 : 0))
        .map(([st, n]) => chip(st, st, n, failed.includes(st) ? ' chip-failed' : ''))]);
    const drawList = keyed(list, (kids) => (kids.items.length === 0
      ? el('tr', {}, el('td', { colspan: 4, class: 'muted', text: 'No child in this state.' }))
      : kids.items.map((c) => el('tr', { dataset: { id: c.id } },
        el('td', {}, el('a', { href: link('/task/' + c.id), text: '#' + c.id })),
        el('td', {}, stateBadge(c.state, endingOf(childDef(), c.state))),
        el('td', { class: 'num', text: String(c.attempts) }),
        el('td', { class: 'error-code', text: c.lastErrorCode || '' })))));
    const drawPager = keyed(pager, ({ after, nextAfter }) => [
      after ? el('button', { type: 'button', class: 'link', id: 'children-first', text: '← first page', on: { click: () => {
        childView.after = '';
        app.again();
      } } }) : null,
      nextAfter ? el('button', { type: 'button', class: 'link', id: 'children-next', text: 'next page →', on: { click: () => {
        childView.after = String(nextAfter);
        app.again();
      } } }) : null]);
    return { bar, parts, percent, summary, retry, drawByState, drawList, drawChips, drawPager, listStatus };
  }

  function renderProgress(t, p, kids) {
    if (!progressParts) progressParts = progressSection(t);
    const v = progressParts;
    if (!p) {
      v.percent.textContent = '—';
      v.summary.textContent = 'no children yet';
      v.bar.setAttribute('aria-valuenow', '0');
      for (const part of Object.values(v.parts)) part.style.width = '0%';
      v.retry.disabled = true;
      v.drawByState({});
    } else {
      const share = (n) => (p.total ? (100 * n) / p.total : 0);
      v.parts.succeeded.style.width = share(p.succeeded) + '%';
      v.parts.failed.style.width = share(p.failed) + '%';
      v.parts.cancelled.style.width = share(p.cancelled) + '%';
      v.parts.running.style.width = share(p.running) + '%';
      v.bar.setAttribute('aria-valuenow', String(p.percent));
      v.bar.title = p.ended + ' of ' + p.total + ' ended';
      v.percent.textContent = p.percent + ' %';
      v.summary.textContent = p.ended + ' of ' + p.total + ' ended: ' + p.succeeded + ' succeeded, ' + p.failed + ' failed, '
        + p.cancelled + ' cancelled; ' + p.running + ' running, ' + p.waiting + ' waiting' + (p.sealed ? '' : ' (more may come)')
        + (p.resolution ? ' · resolved with ' + p.resolution : '');
      v.retry.disabled = p.failed === 0;
      v.drawByState(p.byState);
    }
    const counts = p ? p.byState : {};
    const total = p ? p.total : 0;
    v.drawChips({ counts, total, failed: failedStates(), filter: childView.filter });
    v.drawList({ items: kids.items });
    v.drawPager({ after: childView.after, nextAfter: kids.nextAfter });
    const shown = childView.filter ? childView.filter.split(',').reduce((a, st) => a + (counts[st] || 0), 0) : total;
    v.listStatus.textContent = (childView.filter ? 'In ' + childView.filter.split(',').join(' or ') + ': ' : 'All: ') + shown
      + (shown === 1 ? ' child' : ' children') + ', ' + CHILDREN_PAGE + ' a page, by id' + (childView.after ? ', after #' + childView.after : '') + '.';
  }

  /** The child machine's states that end in failure. */
  function failedStates() {
    const def = progressDef();
    return def ? def.states.filter((st) => st.ending === 'FAILED').map((st) => st.name) : [];
  }

  async function read() {
    const t = await get('/tasks/' + id);
    const def = await app.machine(t.machine);
    let kids = null;
    if (t.children) {
      childMachine = t.children;
      await app.machine(t.children);
      // failed children first: until the user chooses, the list shows the failed ones when there are any
      if (!childView.chosen && t.progress && t.progress.failed > 0) {
        const failed = failedStates().filter((st) => (t.progress.byState[st] || 0) > 0);
        if (failed.length) {
          childView.filter = failed.join(',');
          childView.chosen = true;
        }
      }
      const q = { parent: t.id, limit: CHILDREN_PAGE };
      if (childView.filter) q.state = childView.filter;
      if (childView.after) q.after = childView.after;
      kids = await get('/tasks?' + new URLSearchParams(q).toString());
    }
    return { t, def, kids };
  }

  function render({ t, def, kids }) {
    errors.replaceChildren();
    renderActions(t);
    renderDetails(t, def);
    if (t.children) renderProgress(t, t.progress, kids);
    drawTimeline(t.history);
  }

  return {
    node,
    refresh: sequenced(read, render),
    fail: (error) => fill(errors, errorPanel(error)),
  };
}

// --- one machine ------------------------------------------------------------------------------

/** A machine: its diagram with the tasks in each state, and its rows. */
export function machineView(app, name) {
  const diagramBox = el('div', { class: 'diagram-box', id: 'diagram' });
  const rows = el('tbody');
  const errors = el('div');
  const description = el('p', { class: 'muted' });
  const node = el('div', {},
    el('h1', {}, 'Machine ', el('span', { text: name })),
    description, errors,
    el('section', { class: 'panel' }, el('h2', { text: 'States and tasks' }), diagramBox),
    el('section', { class: 'panel' }, el('h2', { text: 'Rows' }),
      table(['From', 'Event', 'To', 'Fired by', 'Guard', 'Label'], rows, { class: 'rows' })));
  let shown = null;

  async function read() {
    const def = await app.machine(name);
    const o = await get('/overview');
    app.overview = o;
    return { def, o };
  }

  function render({ def, o }) {
    errors.replaceChildren();
    description.textContent = 'v' + def.version + (def.description ? ' · ' + def.description : '') + (def.children ? ' · parents of ' + def.children + ' tasks' : '');
    const m = o.machines.find((x) => x.name === name);
    const counts = {};
    if (m) for (const s of m.states) counts[s.name] = s.tasks;
    const key = JSON.stringify(counts);
    if (key !== shown) {
      shown = key;
      fill(diagramBox, drawDiagram(def, { counts, links: true }));
    }
    if (rows.childElementCount === 0) {
      fill(rows, def.transitions.map((t) => el('tr', {},
        el('td', {}, stateBadge(t.from, endingOf(def, t.from))),
        el('td', { class: 'event', text: t.event }),
        el('td', {}, stateBadge(t.to, endingOf(def, t.to))),
        el('td', { text: t.sources.map((s) => s.toLowerCase()).join(', ') }),
        el('td', { text: t.guard || '' }),
        el('td', { class: 'muted', text: t.label || '' }))));
    }
  }

  return {
    node,
    refresh: sequenced(read, render),
    fail: (error) => fill(errors, errorPanel(error)),
  };
}
