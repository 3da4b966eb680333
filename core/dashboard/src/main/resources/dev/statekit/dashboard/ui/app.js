// The dashboard's shell: the header (system, read-only badge, the actor's name), the routes of
// the hash (#/, #/tasks?…, #/task/ID, #/machine/NAME, #/bulk?…, #/schedules, #/processes) and the live updates: the view on screen
// reads the JSON API again every POLL_MS.

import { get, actor, setActor, ACTOR_PATTERN } from './api.js';
import { el, fill } from './dom.js';
import { overviewView, tasksView, taskView, machineView } from './views.js';
import { bulkView, schedulesView } from './panels.js';
import { processesView, withAttempts } from './processes.js';

const POLL_MS = 1500;

const app = {
  overview: null,
  readOnly: true,
  machines: new Map(),
  /** Returns a machine's definition, read once. */
  async machine(name) {
    if (!this.machines.has(name)) this.machines.set(name, await get('/machines/' + encodeURIComponent(name)));
    return this.machines.get(name);
  },
  /** Reads the view on screen again now (after a change). */
  again() {
    const view = current;
    return view ? view.refresh().then(() => setLive(true), (error) => setLive(false, error)) : Promise.resolve();
  },
};

let current = null;
const main = document.getElementById('view');
const live = document.getElementById('live');

function setLive(ok, error) {
  live.classList.toggle('live-error', !ok);
  live.textContent = ok ? 'live · ' + new Date().toLocaleTimeString() : 'not updated: ' + ((error && (error.code || error.message)) || 'no answer');
}

function refresh(view) {
  if (view.inflight) return Promise.resolve();
  view.inflight = true;
  return view.refresh()
    .then(() => {
      if (view === current) setLive(true);
    }, (error) => {
      if (view !== current) return;
      setLive(false, error);
      if (view.fail) view.fail(error);
    })
    .finally(() => {
      view.inflight = false;
    });
}

function parse() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  const params = Object.fromEntries(new URLSearchParams(q < 0 ? '' : hash.slice(q + 1)));
  return { path, params };
}

function notFound(path) {
  return { node: el('section', { class: 'panel' }, el('h1', { text: 'Nothing here' }), el('p', {}, 'The dashboard has no page ', el('code', { text: path }), '.')), refresh: async () => {} };
}

function show() {
  const { path, params } = parse();
  let m;
  let view;
  if (path === '/' || path === '') view = overviewView(app);
  else if (path === '/tasks') view = tasksView(app, params);
  else if (path === '/bulk') view = bulkView(app, params);
  else if (path === '/schedules') view = schedulesView(app);
  else if (path === '/processes') view = processesView();
  else if ((m = /^\/task\/([0-9]{1,18})$/.exec(path))) view = withAttempts(taskView(app, m[1]), m[1]);
  else if ((m = /^\/machine\/([^/?]+)$/.exec(path))) view = machineView(app, decodeURIComponent(m[1]));
  else view = notFound(path);
  if (current && current.dispose) current.dispose();
  current = view;
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.classList.toggle('active', (a.dataset.nav === 'overview' && (path === '/' || path === '')) || a.dataset.nav === path.slice(1));
  }
  fill(main, view.node);
  window.scrollTo(0, 0);
  refresh(view);
}

function setupActor() {
  const input = document.getElementById('actor');
  input.value = actor();
  const check = () => {
    const v = input.value.trim();
    const ok = v === '' || ACTOR_PATTERN.test(v);
    input.classList.toggle('invalid', !ok);
    input.title = ok ? 'sent as X-User with every change' : '1 to 64 letters, digits or . _ @ : -';
    if (ok) setActor(v);
  };
  input.addEventListener('input', check);
  check();
}

async function boot() {
  try {
    app.overview = await get('/overview');
  } catch (error) {
    setLive(false, error);
    setTimeout(boot, 2000);
    return;
  }
  app.readOnly = app.overview.readOnly;
  document.getElementById('system').textContent = app.overview.system;
  document.title = app.overview.system + ' · statekit dashboard';
  document.getElementById('mode').hidden = !app.readOnly;
  document.body.classList.toggle('read-only', app.readOnly);
  window.addEventListener('hashchange', show);
  show();
  setInterval(() => {
    if (current) refresh(current);
  }, POLL_MS);
}

setupActor();
boot();
