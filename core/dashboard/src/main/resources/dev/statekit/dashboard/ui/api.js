// The dashboard's JSON API: reads, and changes sent as JSON with the actor in X-User.

const ACTOR_KEY = 'statekit.dashboard.actor';
/** The API's address: this module is at BASE/assets/api.js, the API at BASE/api. */
const API = new URL('../api', import.meta.url).pathname;
/** What the service accepts as X-User. */
export const ACTOR_PATTERN = /^[A-Za-z0-9._@:-]{1,64}$/;

/** An error answer: its status, error_code, message and the events allowed instead. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || 'HTTP ' + status);
    this.status = status;
    this.code = (body && body.error_code) || 'HTTP_' + status;
    this.allowed = (body && body.allowed) || null;
    this.field = (body && body.field) || null;
  }
}

/** Returns the name stored in this browser, or ''. */
export function actor() {
  try {
    return localStorage.getItem(ACTOR_KEY) || '';
  } catch (e) {
    return '';
  }
}

/** Stores the name; '' forgets it. */
export function setActor(name) {
  try {
    if (name) localStorage.setItem(ACTOR_KEY, name);
    else localStorage.removeItem(ACTOR_KEY);
  } catch (e) {
    // storage refused: the name holds for this page only
  }
}

async function answer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    body = null;
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** GETs BASE/api + path. */
export async function get(path) {
  const response = await fetch(API + path, { headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' });
  return answer(response);
}

/** POSTs body as JSON to BASE/api + path, acting as the stored name. */
export async function post(path, body = {}) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const name = actor();
  if (name && ACTOR_PATTERN.test(name)) headers['X-User'] = name;
  const response = await fetch(API + path, {
    method: 'POST', headers, body: JSON.stringify(body), cache: 'no-store', credentials: 'same-origin',
  });
  return answer(response);
}
