// The operator's panels: bulk actions over a filter (count first, confirm, then what was done) and
// the recurring schedules (next occurrences, pause, resume, delete after a confirmation).

import { get, post } from './api.js';
import { el, fill, link, when } from './dom.js';
import { sequenced, table, report, describeError, errorPanel } from './views.js';

// --- bulk actions ---------------------------------------------------------------------------------

/** The filter's fields, in the order of the form and of the address. */
const FILTER = ['machine', 'state', 'queue', 'parent', 'errorCode', 'createdFrom', 'createdTo', 'updatedFrom', 'updatedTo'];
const TIMES = ['createdFrom', 'createdTo', 'updatedFrom', 'updatedTo'];
const LABELS = {
  state: 'state', queue: 'queue', parent: 'parent', errorCode: 'error code',
  createdFrom: 'created from', createdTo: 'created before', updatedFrom: 'last changed from', updatedTo: 'last changed before',
};

function pad(n) {
  return String(n).padStart(2, '0');
}

/** Returns an instant as a datetime-local input shows it: local time to the second. */
function localInput(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return '';
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
}

/** Returns a datetime-local input's value (local time) as an instant, '' when empty, null when not a time. */
function instantOf(value) {
  if (!value) return '';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function plural(n, one, many) {
  return n + ' ' + (n === 1 ? one : many);
}

function capitalized(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * Bulk actions: a filter (machine, state, queue, parent, last error code, created and changed time
 * ranges), kept in the address; Count tasks says how many match and the last of them; Retry, Cancel
 * or Delete asks, naming the action and the count, and only Yes sends it over the tasks counted
 * (the count's upTo); then what it did: matched, applied, asked to stop, refused by code, failed.
 */
export function bulkView(app, params) {
  const o = app.overview || { machines: [], queues: [] };
  const values = {};
  for (const f of FILTER) values[f] = params[f] || '';

  const machineSelect = el('select', { name: 'machine', 'aria-label': 'machine', required: true },
    el('option', { value: '', text: 'choose a machine' }),
    o.machines.map((m) => el('option', { value: m.name, text: m.name, selected: m.name === values.machine })));
  const stateSelect = el('select', { name: 'state', 'aria-label': 'state' });
  const fillStates = () => {
    const m = o.machines.find((x) => x.name === machineSelect.value);
    const names = m ? m.states.map((s) => s.name) : [];
    if (values.state && machineSelect.value === values.machine && !names.includes(values.state)) names.push(values.state);
    fill(stateSelect, el('option', { value: '', text: 'any state' }),
      names.map((s) => el('option', { value: s, text: s, selected: s === values.state && machineSelect.value === values.machine })));
  };
  fillStates();
  const queueNames = o.queues.map((q) => q.name);
  if (values.queue && !queueNames.includes(values.queue)) queueNames.push(values.queue);
  const queueSelect = el('select', { name: 'queue', 'aria-label': 'queue' }, el('option', { value: '', text: 'any queue' }),
    queueNames.map((q) => el('option', { value: q, text: q, selected: q === values.queue })));
  const parentInput = el('input', { name: 'parent', type: 'text', inputmode: 'numeric', placeholder: 'parent id', value: values.parent, size: 8, 'aria-label': 'parent id' });
  const errorInput = el('input', { name: 'errorCode', type: 'text', placeholder: 'last error code', value: values.errorCode, maxlength: 200, 'aria-label': 'last error code', spellcheck: 'false' });
  const timeInputs = {};
  for (const f of TIMES) {
    timeInputs[f] = el('input', { name: f, type: 'datetime-local', step: 1, value: localInput(values[f]), 'aria-label': LABELS[f] });
  }
  const count = el('p', { class: 'bulk-count', id: 'bulk-count', role: 'status' });
  const actions = el('p', { class: 'controls', id: 'bulk-actions' });
  const confirmBox = el('div', { class: 'bulk-confirm', id: 'bulk-confirm' });
  const message = el('p', { class: 'message', id: 'bulk-message', role: 'status' });
  const result = el('div', { id: 'bulk-result' });
  const countButton = el('button', { type: 'submit', id: 'bulk-count-button', text: 'Count tasks' });
  const form = el('form', { class: 'filters bulk-filter', id: 'bulk-filter' },
    el('div', { class: 'filter-row' }, machineSelect, stateSelect, queueSelect, parentInput, errorInput),
    el('div', { class: 'filter-row' },
      el('label', {}, 'Created from', timeInputs.createdFrom), el('label', {}, 'before', timeInputs.createdTo)),
    el('div', { class: 'filter-row' },
      el('label', {}, 'Last changed from', timeInputs.updatedFrom), el('label', {}, 'before', timeInputs.updatedTo)),
    el('div', { class: 'filter-row' }, countButton, el('a', { href: '#/bulk', class: 'button-link', text: 'Clear' })));
  const node = el('div', {},
    el('h1', { text: 'Bulk actions' }),
    el('section', { class: 'panel bulk', id: 'bulk' },
      el('h2', { text: 'Tasks of a filter' }),
      app.readOnly ? el('p', { class: 'muted', text: 'Read-only dashboard: it counts nothing and changes nothing.' }) : [form, count, actions, confirmBox, message]),
    el('section', { class: 'panel', id: 'bulk-last' }, el('h2', { text: 'What the last action did' }), result));

  let counted = null;   // { filter, described, count, upTo, def }
  let busy = false;

  /** Reads the form as the API's filter; throws a described error for a value it cannot send. */
  function readFilter() {
    const filter = {};
    const shown = {};
    if (!machineSelect.value) throw { code: 'INVALID_FIELD', message: 'machine: choose a machine' };
    filter.machine = machineSelect.value;
    shown.machine = filter.machine;
    if (stateSelect.value) filter.state = shown.state = stateSelect.value;
    if (queueSelect.value) filter.queue = shown.queue = queueSelect.value;
    const parent = parentInput.value.trim();
    if (parent) {
      if (!/^[1-9][0-9]{0,17}$/.test(parent)) throw { code: 'INVALID_FIELD', message: 'parent: a task id' };
      filter.parent = Number(parent);
      shown.parent = parent;
    }
    const code = errorInput.value.trim();
    if (code) filter.errorCode = shown.errorCode = code;
    for (const f of TIMES) {
      const instant = instantOf(timeInputs[f].value);
      if (instant === null) throw { code: 'INVALID_FIELD', message: LABELS[f] + ': not a time' };
      if (instant) filter[f] = shown[f] = instant;
    }
    return { filter, shown };
  }

  function describe(filter) {
    const parts = ['machine ' + filter.machine];
    for (const f of FILTER.slice(1)) {
      if (filter[f] === undefined) continue;
      parts.push(LABELS[f] + ' ' + (TIMES.includes(f) ? new Date(filter[f]).toLocaleString() : filter[f]));
    }
    return parts.join(', ');
  }

  function clearCount(text) {
    counted = null;
    delete count.dataset.count;
    delete count.dataset.upTo;
    count.textContent = text || '';
    actions.replaceChildren();
    confirmBox.replaceChildren();
  }

  async function doCount() {
    let read;
    try {
      read = readFilter();
    } catch (error) {
      clearCount();
      report(message, { error: describeError(error) });
      return;
    }
    history.replaceState(null, '', link('/bulk', read.shown));
    busy = true;
    countButton.disabled = true;
    clearCount('counting…');
    try {
      const [c, def] = await Promise.all([post('/bulk/count', read.filter), app.machine(read.filter.machine)]);
      counted = { filter: read.filter, described: describe(read.filter), count: c.count, upTo: c.upTo, def };
      count.dataset.count = String(c.count);
      count.dataset.upTo = String(c.upTo);
      fill(count, el('strong', { class: 'figure', text: plural(c.count, 'task', 'tasks') }), ' match ' + counted.described
        + (c.count ? ' now, the last of them #' + c.upTo + '.' : ' now.'));
      drawActions();
    } catch (error) {
      clearCount();
      report(message, { error: describeError(error) });
    } finally {
      busy = false;
      countButton.disabled = false;
    }
  }

  function drawActions() {
    if (!counted || counted.count === 0) {
      actions.replaceChildren();
      return;
    }
    const def = counted.def;
    const retries = def.transitions.some((t) => t.event === 'RETRY' && t.sources.includes('USER'));
    const tasks = plural(counted.count, 'task', 'tasks');
    fill(actions,
      retries ? el('button', { type: 'button', dataset: { bulk: 'retry' }, text: 'Retry ' + tasks + '…', on: { click: () => ask('retry') } }) : null,
      def.cancelEvent ? el('button', { type: 'button', dataset: { bulk: 'cancel' }, text: 'Cancel ' + tasks + '…', on: { click: () => ask('cancel') } }) : null,
      el('button', { type: 'button', class: 'danger', dataset: { bulk: 'delete' }, text: 'Delete ' + tasks + '…', on: { click: () => ask('delete') } }));
  }

  function ask(action) {
    if (busy || !counted) return;
    message.replaceChildren();
    const tasks = plural(counted.count, 'task', 'tasks');
    const what = {
      retry: 'Retry fires RETRY on each: a task the table does not let retry (one not failed) is refused and counted.',
      cancel: 'Cancel cancels each as CANCEL would; a running task is asked to stop; a finished one is refused and counted.',
      delete: 'Delete removes each finished root task with its history and descendants, for good; an unfinished task or a child is refused and counted.',
    }[action];
    const upTo = counted.upTo;
    fill(confirmBox,
      el('p', { class: 'question', id: 'bulk-question', text: capitalized(action) + ' ' + tasks + ' (' + counted.described + ')?' }),
      el('p', { class: 'muted', text: what + ' Tasks created after the count (after #' + upTo + ') are left alone.' }),
      el('p', {},
        el('button', { type: 'button', class: 'confirm', dataset: { action }, text: 'Yes, ' + action + ' ' + tasks, on: { click: () => run(action, upTo) } }),
        ' ',
        el('button', { type: 'button', class: 'dismiss', text: 'No, change nothing', on: { click: () => {
          confirmBox.replaceChildren();
          report(message, { text: capitalized(action) + ' not sent: nothing changed.' });
        } } })));
  }

  async function run(action, upTo) {
    if (busy || !counted) return;
    busy = true;
    for (const b of node.querySelectorAll('#bulk-confirm button, #bulk-actions button')) b.disabled = true;
    const body = Object.assign({}, counted.filter, { upTo }, action === 'retry' ? { event: 'RETRY' } : {});
    try {
      const r = await post('/bulk/' + action, body);
      confirmBox.replaceChildren();
      report(message, { text: capitalized(action) + ': ' + r.applied + ' applied, ' + r.refused + ' refused of ' + r.matched + ' matched.' });
      fill(result, resultTable(action, counted.described, r));
    } catch (error) {
      confirmBox.replaceChildren();
      report(message, { error: describeError(error) });
    } finally {
      busy = false;
    }
    await doCount();
  }

  for (const input of [machineSelect, stateSelect, queueSelect, parentInput, errorInput, ...Object.values(timeInputs)]) {
    input.addEventListener('input', () => {
      if (counted) clearCount('The filter changed: count again.');
    });
  }
  machineSelect.addEventListener('change', () => {
    values.state = '';
    fillStates();
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!busy) doCount();
  });
  result.append(el('p', { class: 'muted', text: 'Nothing yet.' }));
  if (!app.readOnly && values.machine) doCount();
  return { node, refresh: async () => {} };
}

function resultTable(action, described, r) {
  const figure = (name, label, value, note) => el('tr', { dataset: { figure: name } },
    el('th', { scope: 'row', text: label }), el('td', { class: 'num', text: String(value) }), el('td', { class: 'muted', text: note }));
  const refusals = Object.entries(r.refusals);
  return [
    el('p', {}, el('strong', { text: capitalized(action) }), ' of ' + described + ':'),
    el('table', { class: 'counts bulk-figures' }, el('tbody', {},
      figure('matched', 'Matched', r.matched, 'tasks found matching the filter, up to the last one counted'),
      figure('applied', 'Applied', r.applied, action === 'delete' ? 'root tasks deleted' : 'tasks changed, each a history entry with your name'),
      action === 'cancel' ? figure('requested', 'Asked to stop', r.requested, 'running tasks whose cancellation was requested') : null,
      figure('refused', 'Refused', r.refused, 'tasks left as they were, by the refusal code below'),
      refusals.map(([code, n]) => el('tr', { class: 'refusal', dataset: { refusal: code } },
        el('th', { scope: 'row' }, el('span', { class: 'error-code', text: code })), el('td', { class: 'num', text: String(n) }), el('td'))),
      figure('failed', 'Failed', r.failed, 'changes that failed with an error (logged)'),
      action === 'delete' ? figure('alsoDeleted', 'Also deleted', r.alsoDeleted, 'descendants deleted with their roots') : null)),
  ];
}

// --- schedules ------------------------------------------------------------------------------------

/** The recurring schedules: their timing, state and next occurrences, with Pause, Resume and Delete. */
export function schedulesView(app) {
  const body = el('tbody');
  const message = el('p', { class: 'message', id: 'schedule-message', role: 'status' });
  const confirmBox = el('div', { class: 'bulk-confirm', id: 'schedule-confirm' });
  const errors = el('div');
  const node = el('div', {},
    el('h1', { text: 'Schedules' }),
    errors,
    el('section', { class: 'panel' },
      el('p', { class: 'muted', text: 'Each schedule creates a task of its machine at each occurrence, for every process on the store.' }),
      table(['Schedule', 'Machine', 'When', 'Misfire', 'State', 'Next occurrences', 'Taken up to', app.readOnly ? null : 'Controls'],
        body, { class: 'schedules' }),
      confirmBox, message));
  const rows = new Map();
  let busy = false;

  async function act(name, action) {
    if (busy) return;
    busy = true;
    try {
      const s = await post('/schedules/' + encodeURIComponent(name) + '/' + action, {});
      report(message, { text: action === 'delete' ? 'schedule ' + name + ' deleted; the tasks it created stay'
        : name + ': ' + (s.paused ? 'paused' : 'resumed') });
    } catch (error) {
      report(message, { error: describeError(error) });
    } finally {
      busy = false;
      confirmBox.replaceChildren();
      app.again();
    }
  }

  function askDelete(name) {
    message.replaceChildren();
    fill(confirmBox,
      el('p', { class: 'question', id: 'schedule-question', text: 'Delete schedule ' + name + '?' }),
      el('p', { class: 'muted', text: 'It creates no more tasks; the tasks it created stay. To stop it for a while, pause it instead.' }),
      el('p', {},
        el('button', { type: 'button', class: 'confirm', dataset: { schedule: name }, text: 'Yes, delete schedule ' + name, on: { click: () => act(name, 'delete') } }),
        ' ',
        el('button', { type: 'button', class: 'dismiss', text: 'No, keep it', on: { click: () => {
          confirmBox.replaceChildren();
          report(message, { text: 'schedule ' + name + ' kept' });
        } } })));
  }

  function row(name) {
    const cells = {
      machine: el('td', { class: 'schedule-machine' }),
      timing: el('td', { class: 'schedule-timing' }),
      misfire: el('td', { class: 'schedule-misfire' }),
      state: el('td', { class: 'schedule-state' }),
      next: el('td', { class: 'schedule-next' }),
      last: el('td', { class: 'schedule-last' }),
    };
    const tr = el('tr', { dataset: { schedule: name } }, el('td', { class: 'schedule-name', text: name }),
      cells.machine, cells.timing, cells.misfire, cells.state, cells.next, cells.last);
    const r = { tr, cells, shown: null, buttons: null };
    if (!app.readOnly) {
      r.buttons = {
        pause: el('button', { type: 'button', dataset: { action: 'pause' }, text: 'Pause', on: { click: () => act(name, 'pause') } }),
        resume: el('button', { type: 'button', dataset: { action: 'resume' }, text: 'Resume', on: { click: () => act(name, 'resume') } }),
        remove: el('button', { type: 'button', class: 'danger', dataset: { action: 'delete' }, text: 'Delete…', on: { click: () => askDelete(name) } }),
      };
      tr.append(el('td', { class: 'controls' }, r.buttons.pause, r.buttons.resume, r.buttons.remove));
    }
    return r;
  }

  function update(r, s) {
    const key = JSON.stringify(s);
    if (key === r.shown) return;
    r.shown = key;
    r.tr.dataset.state = s.paused ? 'paused' : 'active';
    fill(r.cells.machine, el('a', { href: link('/tasks', { machine: s.machine }), text: s.machine }), s.queue ? el('div', { class: 'muted', text: 'queue ' + s.queue }) : null);
    r.cells.timing.textContent = s.timing;
    r.cells.misfire.textContent = s.misfire;
    fill(r.cells.state, el('span', { class: 'queue-badge ' + (s.paused ? 'paused' : 'running'), text: s.paused ? 'paused' : 'active' }));
    if (s.paused) {
      fill(r.cells.next, el('p', { class: 'none', text: 'none while paused' }),
        el('p', { class: 'muted' }, 'resumed, it goes on from ', when(s.nextDue), ' (missed ones as its misfire policy says)'));
    } else {
      fill(r.cells.next, el('ol', { class: 'occurrences' }, s.next.map((t) => el('li', {}, when(t)))));
    }
    fill(r.cells.last, when(s.last));
    if (r.buttons) {
      r.buttons.pause.disabled = s.paused;
      r.buttons.resume.disabled = !s.paused;
    }
  }

  function render(answer) {
    errors.replaceChildren();
    const names = new Set(answer.schedules.map((s) => s.name));
    for (const [name, r] of rows) {
      if (!names.has(name)) {
        r.tr.remove();
        rows.delete(name);
      }
    }
    for (const s of answer.schedules) {
      if (!rows.has(s.name)) {
        rows.set(s.name, row(s.name));
        body.append(rows.get(s.name).tr);
      }
      update(rows.get(s.name), s);
    }
    const empty = body.querySelector('tr.empty');
    if (answer.schedules.length === 0 && !empty) {
      body.append(el('tr', { class: 'empty' }, el('td', { colspan: 8, class: 'muted', text: 'No schedule of this service\'s machines.' })));
    } else if (answer.schedules.length > 0 && empty) {
      empty.remove();
    }
  }

  return {
    node,
    refresh: sequenced(() => get('/schedules'), render),
    fail: (error) => fill(errors, errorPanel(error)),
  };
}
