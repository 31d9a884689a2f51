// form.js: reads the role form into a request body and shows problem documents next to it, linked to fields.
import { el, problemNodes } from './render.js';

const $ = (id) => document.getElementById(id);
const form = $('role-form');
const formErrors = $('form-errors');

const FIELD_IDS = {
  title: 'role-title', description: 'role-description', mustHaveSkills: 'must-have', niceToHaveSkills: 'nice-to-have',
  seniority: 'seniority', location: 'location', remote: 'remote', minYearsExperience: 'min-years',
  maxIterations: 'max-iterations', scoreThreshold: 'score-threshold', targetStrong: 'target-strong',
};

// "role.mustHaveSkills.0", "/role/title", "body.maxIterations" → the input that holds that value.
function fieldIdFor(path) {
  const segs = String(path || '').split(/[./[\]#]+/).filter(Boolean);
  if (segs[0] === 'body') segs.shift();
  if (segs[0] === 'role') segs.shift();
  // Own keys only: a path such as "constructor" or "__proto__" names no field, not an Object.prototype member.
  return segs.length && Object.hasOwn(FIELD_IDS, segs[0]) ? FIELD_IDS[segs[0]] : null;
}

// A problem's message, naming the list item it is about ("role.mustHaveSkills.1": the second skill as sent).
function messageOf(e) {
  const message = e.message || 'is not valid';
  const segs = String(e.path || '').split(/[./[\]#]+/).filter(Boolean);
  const index = /^\d+$/.test(segs.at(-1) || '') ? Number(segs.at(-1)) : null;
  const id = fieldIdFor(e.path);
  if (index === null || (id !== 'must-have' && id !== 'nice-to-have')) return message;
  const item = splitSkills($(id).value)[index];
  const shown = item === undefined ? '' : ` (“${item.length > 30 ? `${item.slice(0, 30)}…` : item}”)`;
  return `skill ${index + 1}${shown}: ${message}`;
}

// Comma-separated text → trimmed, de-duplicated (case-insensitively) list.
function splitSkills(text) {
  const seen = new Set();
  return text.split(',').map((s) => s.trim()).filter((s) => {
    const k = s.toLowerCase();
    if (!s || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function numberOf(id) {
  const v = $(id).value.trim();
  return v === '' ? undefined : Number(v);
}

export function readForm() {
  // Sent as typed: the service says what is wrong with a blank title ("must not be only whitespace").
  const role = { title: $('role-title').value, description: $('role-description').value };
  const must = splitSkills($('must-have').value);
  const nice = splitSkills($('nice-to-have').value);
  if (must.length) role.mustHaveSkills = must;
  if (nice.length) role.niceToHaveSkills = nice;
  if ($('seniority').value) role.seniority = $('seniority').value;
  if ($('location').value.trim()) role.location = $('location').value.trim();
  // Three states, as the API has them: left out, the role says nothing about remote work (an unticked box sent
  // false, which reads as on-site only and narrowed the search to the role's location).
  if ($('remote').value) role.remote = $('remote').value === 'true';
  const minYears = numberOf('min-years');
  if (minYears !== undefined) role.minYearsExperience = minYears;
  const body = { role };
  for (const [key, id, fallback] of [['maxIterations', 'max-iterations', 3], ['scoreThreshold', 'score-threshold', 70], ['targetStrong', 'target-strong', 5]]) {
    const n = numberOf(id);
    body[key] = n === undefined ? fallback : n;
  }
  return body;
}

export function clearFormErrors() {
  formErrors.hidden = true;
  formErrors.replaceChildren();
  for (const p of form.querySelectorAll('.field-error')) p.remove();
  for (const input of form.querySelectorAll('[aria-invalid]')) {
    input.removeAttribute('aria-invalid');
    const orig = input.dataset.describedby;
    if (orig) input.setAttribute('aria-describedby', orig); else input.removeAttribute('aria-describedby');
  }
}

function markField(id, messages) {
  const input = $(id);
  const msgId = `${id}-error`;
  input.setAttribute('aria-invalid', 'true');
  if (!('describedby' in input.dataset)) input.dataset.describedby = input.getAttribute('aria-describedby') || '';
  input.setAttribute('aria-describedby', `${input.dataset.describedby} ${msgId}`.trim());
  // Right above the input, where sighted users look.
  input.before(el('p', { class: 'field-error', id: msgId }, messages.join(' ')));
}

export function showFormProblem(err) {
  const problem = err.problem;
  const byField = new Map();
  for (const e of problem.errors) {
    const id = fieldIdFor(e.path);
    if (id) byField.set(id, [...(byField.get(id) || []), messageOf(e)]);
  }
  for (const [id, msgs] of byField) markField(id, msgs);
  const linkFor = (e) => {
    const id = fieldIdFor(e.path);
    if (!id) return null;
    const label = form.querySelector(`label[for="${id}"]`);
    const a = el('a', { href: `#${id}` }, `${label ? label.firstChild.textContent.trim() : e.path}: ${messageOf(e)}`);
    // Focus the field instead of navigating, which would replace the #run=… hash.
    a.addEventListener('click', (ev) => { ev.preventDefault(); $(id).focus(); });
    return a;
  };
  const hint = err.kind === 'network' || err.status >= 500 || err.status === 409
    ? el('p', {}, 'Press “Start run” again to retry: the same request reuses its idempotency key, so it cannot start a second run.')
    : null;
  formErrors.replaceChildren(el('h3', {}, 'The run was not started'), ...problemNodes(problem, linkFor), hint || '');
  formErrors.hidden = false;
  formErrors.focus();
}

