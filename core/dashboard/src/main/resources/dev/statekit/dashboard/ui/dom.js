// Building the page from data: every value is set as text (textContent, text nodes, attribute
// values), never parsed as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function set(node, props) {
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.setAttribute('class', value);
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'on') for (const [event, fn] of Object.entries(value)) node.addEventListener(event, fn);
    else if (key === 'dataset') for (const [k, v] of Object.entries(value)) node.dataset[k] = String(v);
    else if (/^on/i.test(key) || key === 'style' || key === 'srcdoc') throw new Error('not set from data: ' + key);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  return node;
}

/** Appends children: nodes as they are, anything else as a text node. */
export function append(node, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Creates an HTML element with attributes (text, class, dataset, on: listeners) and children. */
export function el(tag, props = {}, ...children) {
  return append(set(document.createElement(tag), props), ...children);
}

/** Creates an SVG element. */
export function svg(tag, props = {}, ...children) {
  return append(set(document.createElementNS(SVG_NS, tag), props), ...children);
}

/** Replaces the children of node. */
export function fill(node, ...children) {
  node.replaceChildren();
  return append(node, ...children);
}

/** Returns the hash link of a route and its query. */
export function link(path, query = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== '') params.set(k, String(v));
  const q = params.toString();
  return '#' + path + (q ? '?' + q : '');
}

/** Returns a time as the page shows it: local date and time. */
export function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

/** Returns how long ago (or how far ahead) iso is from now, e.g. "12 s ago". */
export function ago(iso, now = Date.now()) {
  if (!iso) return '—';
  const ms = new Date(iso).getTime() - now;
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 60 ? s + ' s' : s < 3600 ? Math.round(s / 60) + ' min' : s < 172800 ? Math.round(s / 3600) + ' h' : Math.round(s / 86400) + ' d';
  return ms > 0 ? 'in ' + text : text + ' ago';
}

/** Returns an element showing how long ago iso was; {@link refreshAgo} keeps it current. */
export function since(iso) {
  return iso ? el('span', { class: 'ago', title: iso, dataset: { since: iso }, text: ago(iso) }) : '';
}

/** Updates every element made by since() under root. */
export function refreshAgo(root) {
  const now = Date.now();
  for (const node of root.querySelectorAll('[data-since]')) node.textContent = ago(node.dataset.since, now);
}

/** Returns a <time> element with the local time as text and the instant as its datetime. */
export function when(iso) {
  return iso ? el('time', { datetime: iso, title: iso, text: time(iso) }) : '—';
}
