// app.js: wires the page together: API key, role form, run view polling, recent runs and #run=<id> routing.
import { keyStore, onKeyRejected, isTerminal, createRun, cancelRun, getRole, listRuns, newIdempotencyKey, RunPoller } from './api.js';
import { renderRun, appendEvents, renderRecentRuns } from './render.js';
import { readForm, clearFormErrors, showFormProblem } from './form.js';

const $ = (id) => document.getElementById(id);
const dom = {
  status: $('run-status'), runId: $('run-id'), meta: $('run-meta'), progress: $('run-progress'),
  progressSummary: $('progress-summary'), stop: $('stop-reason'), usage: $('usage'), error: $('run-error'), cancel: $('cancel-run'),
  shortlist: $('shortlist'), shortlistEmpty: $('shortlist-empty'),
};
const form = $('role-form');
const submitBtn = $('submit-run');

// ---------- API key ----------
// The key the open run, the recent runs and the last submission were read with. A 401 forgets the stored key but not
// this one: what the rejected key read is still on screen, so saving that key again resumes it, and any other key
// closes it (forgetWhatTheKeyRead).
let keyInUse = keyStore.get();
// Counts key changes, so an answer to a request sent with an earlier key (the recent runs, a new run) is dropped.
let keyEpoch = 0;
// Role titles by role id, read once per role while the key stays: a run names its role by id only.
const roleTitles = new Map();

/** The run's role title, read once (null until then, or if it cannot be read); `onRead` when it arrives. */
function roleTitleOf(roleId, onRead) {
  if (!roleId || roleTitles.has(roleId)) return roleTitles.get(roleId) ?? null;
  roleTitles.set(roleId, null);
  const epoch = keyEpoch;
  getRole(roleId).then((role) => {
    if (epoch !== keyEpoch || !role || typeof role.title !== 'string') return;
    roleTitles.set(roleId, role.title);
    onRead();
  }, () => roleTitles.delete(roleId));
  return null;
}

function showKeyStatus(message) {
  const has = Boolean(keyStore.get());
  $('key-status').textContent = message || (has ? 'A key is saved for this tab.' : 'No key saved yet.');
  $('forget-key').disabled = !has;
  $('api-key').placeholder = has ? 'Saved (hidden); paste to replace' : '';
}

// A 401 anywhere: the key was forgotten by api.js; say so where the key is entered, not only where it failed.
onKeyRejected(() => {
  showKeyStatus('The saved API key was not accepted (401), so it was forgotten: paste a valid key and save it.');
  $('api-key').setAttribute('aria-invalid', 'true');
});

// A key typed but not yet saved still counts, so "paste key, press Start run" just works.
function ensureKey() {
  const typed = $('api-key').value.trim();
  if (typed && !/^[\x21-\x7e]+$/.test(typed)) {
    showKeyStatus('This key contains characters an API key cannot have (spaces, invisible or non-ASCII characters): copy it again.');
    $('api-key').setAttribute('aria-invalid', 'true');
    return false;
  }
  if (typed) {
    const changed = typed !== keyInUse;
    keyStore.set(typed);
    keyInUse = typed;
    $('api-key').removeAttribute('aria-invalid');
    $('api-key').value = ''; // the secret stays in session storage only, not in the DOM
    const closed = changed && forgetWhatTheKeyRead(true);
    showKeyStatus(closed ? 'Key saved for this tab; the run opened with the previous key was closed.' : 'Key saved for this tab.');
  }
  return Boolean(keyStore.get());
}

$('key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  if (!$('api-key').value.trim()) {
    showKeyStatus('Paste a key into the field first.');
    $('api-key').focus();
    return;
  }
  if (!ensureKey()) return;
  loadRecentRuns();
  // Resume a run that was waiting for a (valid) key, e.g. after a reload or a 401.
  const id = runIdFromHash() || (current && current.id);
  if (id && (!current || current.id !== id || (current.poller.stopped && !current.finished))) openRun(id);
});

$('forget-key').addEventListener('click', () => {
  keyStore.clear();
  keyInUse = '';
  $('api-key').value = '';
  const closed = forgetWhatTheKeyRead(false);
  $('runs-status').textContent = 'Save an API key to see recent runs.';
  showKeyStatus(closed ? 'Key forgotten; the open run was closed.' : 'Key forgotten.');
  $('api-key').focus();
});

// Another key may be another organisation's: nothing the previous key read may stay on screen under it (a finished
// run's shortlist, with candidates' names, would; a run in flight would show "Not found" above the other
// organisation's data). The recent runs and the last submission go, and the open run is closed, its #run= address
// too. Only a run that has shown nothing yet (the address bar's, after a key was rejected) is opened again with the
// new key, when `reopen` says there is one. Says whether a run was closed.
function forgetWhatTheKeyRead(reopen) {
  keyEpoch += 1;
  roleTitles.clear();
  lastSubmit = null;
  runsCursor = null;
  $('recent-runs').replaceChildren();
  $('more-runs').hidden = true;
  if (!current) return false;
  if (reopen && !current.read) {
    openRun(current.id);
    return false;
  }
  closeRun();
  return true;
}

// ---------- role form ----------
// One Idempotency-Key per submission of one body. It is reused for the identical body after a network error, a
// 5xx, 409 or 429, and also after a 202 while the run it started has not finished: the second click of a double
// click often lands after a fast 202, and the server then answers with that run instead of starting a second one.
// A different body, or the same body once its run has finished, gets a new key: that is a deliberate new run.
let lastSubmit = null; // { sig, key, runId }

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  clearFormErrors();
  if (!ensureKey()) {
    // A key typed and refused (ensureKey said why beside the field) is not a missing one.
    const detail = $('api-key').value.trim() ? 'The key typed above cannot be used: see beside it.' : 'Paste your API key above first.';
    showFormProblem({ kind: 'no-key', problem: { title: 'No API key', detail, errors: [] } });
    return;
  }
  const epoch = keyEpoch;
  const body = readForm();
  const sig = JSON.stringify(body);
  if (!lastSubmit || lastSubmit.sig !== sig) lastSubmit = { sig, key: newIdempotencyKey(), runId: null };
  const submission = lastSubmit;
  submitBtn.disabled = true;
  submitBtn.textContent = 'Starting…';
  try {
    let run = await createRun(body, submission.key);
    if (epoch !== keyEpoch) return; // started with a key since replaced or forgotten: not this key's run to show
    if (submission.runId === run.id && isTerminal(run.status)) {
      // its run finished while another run was open (no done() for it): the same role again is a new run
      submission.key = newIdempotencyKey();
      submission.runId = null;
      run = await createRun(body, submission.key);
    }
    if (epoch !== keyEpoch) return;
    const again = submission.runId === run.id;
    submission.runId = run.id;
    openRun(run.id, run);
    if (again) setRunMessage('This role was already submitted: this is the run it started, not a new one.');
    window.location.hash = `run=${encodeURIComponent(run.id)}`;
    $('run-heading').focus();
    loadRecentRuns();
  } catch (err) {
    if (!err.problem) throw err;
    if (epoch !== keyEpoch) return;
    const retryable = err.kind === 'network' || err.status >= 500 || err.status === 409 || err.status === 429;
    if (!retryable && lastSubmit === submission) lastSubmit = null;
    showFormProblem(err);
  } finally {
    submitBtn.disabled = false;
    submitBtn.textContent = 'Start run';
  }
});

// ---------- run view ----------
let current = null; // { id, poller, finished, read }
const RUN_EMPTY_TEXT = $('run-empty').textContent;

function setRunMessage(text, isError = false, fromPoll = false) {
  const box = $('run-message');
  box.textContent = text;
  box.classList.toggle('is-error', isError);
  box.dataset.fromPoll = fromPoll ? 'true' : '';
}

// A sentence after a problem's words: one full stop between them, not two ("see errors.. Updates stopped.").
const then = (text, next) => `${text.replace(/[.\s]+$/, '')}. ${next}`;

function describe(err) {
  const p = err.problem || { title: 'Unexpected error', detail: '' };
  return p.detail ? `${p.title}: ${p.detail}` : p.title;
}

// Empties everything a run showed, hidden parts too, so no fact of one run is left for the next (or for no run).
function clearRunView() {
  $('events').replaceChildren();
  dom.shortlist.replaceChildren();
  dom.shortlistEmpty.hidden = false;
  dom.shortlistEmpty.textContent = 'No candidates scored yet.';
  dom.status.textContent = '';
  delete dom.status.dataset.status;
  dom.progressSummary.textContent = '';
  for (const n of [dom.meta, dom.progress, dom.stop, dom.usage, dom.error]) n.replaceChildren();
  dom.error.hidden = true;
  dom.cancel.hidden = true;
  dom.runId.textContent = '';
  setRunMessage('');
}

// Back to "no run open": polling stops, the view is emptied and the address no longer names the run (replaced, not
// pushed, and without a hashchange that would open it again).
function closeRun() {
  if (current) current.poller.stop();
  current = null;
  clearRunView();
  $('run-body').hidden = true;
  $('run-empty').textContent = RUN_EMPTY_TEXT;
  $('run-empty').hidden = false;
  markCurrentRun();
  if (window.location.hash) window.history.replaceState(null, '', window.location.pathname + window.location.search);
}

function openRun(id, initialRun) {
  if (current) current.poller.stop();
  $('run-empty').hidden = true;
  $('run-body').hidden = false;
  clearRunView();
  dom.runId.textContent = id;
  // read: the run has been shown (a key change then closes it rather than opening it again with the new key)
  const me = { id, finished: false, read: Boolean(initialRun), poller: null, run: null };
  const mine = () => current === me; // late answers for a run no longer shown are dropped
  // The run as last answered, with its role's title once that has been read.
  const show = (run) => {
    me.run = run;
    renderRun(dom, run, roleTitleOf(run.roleId, () => { if (mine()) renderRun(dom, me.run, roleTitles.get(me.run.roleId)); }));
  };
  me.poller = new RunPoller(id, {
    ok: () => { if (mine() && $('run-message').dataset.fromPoll === 'true') setRunMessage(''); },
    run: (run) => {
      if (!mine()) return;
      me.read = true;
      const hadFocus = document.activeElement === dom.cancel;
      show(run);
      if (hadFocus && dom.cancel.hidden) $('run-heading').focus(); // don't strand keyboard focus on a hidden button
    },
    events: (items) => { if (mine()) appendEvents($('events'), items); },
    error: (err, fatal, retryIn) => {
      if (!mine()) return;
      const retry = retryIn ? `Retrying in ${Math.ceil(retryIn)} s…` : 'Retrying…';
      setRunMessage(fatal ? then(describe(err), 'Updates stopped.') : then(describe(err), retry), true, true);
    },
    done: () => {
      if (lastSubmit && lastSubmit.runId === id) lastSubmit = null; // the same role may now be run again
      if (!mine()) return;
      me.finished = true;
      // A cancel's failure said while the run went on is moot once it has ended.
      if ($('run-message').classList.contains('is-error')) setRunMessage('');
      loadRecentRuns();
    },
  });
  current = me;
  if (initialRun) show(initialRun);
  markCurrentRun();
  me.poller.start();
}

// While a cancel is on its way the button is aria-disabled, not disabled: a disabled button loses keyboard focus,
// which would drop a keyboard user at the top of the page before the hidden-button check below could move it.
dom.cancel.addEventListener('click', async () => {
  if (!current || dom.cancel.getAttribute('aria-disabled') === 'true') return;
  const shown = current;
  const { id, poller } = shown;
  dom.cancel.setAttribute('aria-disabled', 'true');
  try {
    await cancelRun(id);
    if (current === shown) setRunMessage('Cancellation requested.');
  } catch (err) {
    // An answer that comes once another run is open is not that run's news.
    if (current === shown) setRunMessage(err.status === 409 ? 'The run had already finished.' : describe(err), err.status !== 409);
  } finally {
    dom.cancel.removeAttribute('aria-disabled');
    poller.wake(); // fetch the new status now rather than after the current wait
  }
});

function runIdFromHash() {
  const m = /(?:^#|&)run=([^&]+)/.exec(window.location.hash);
  if (!m) return null;
  try { return decodeURIComponent(m[1]); } catch { return null; }
}

window.addEventListener('hashchange', () => {
  const id = runIdFromHash();
  if (id && (!current || current.id !== id)) openRun(id);
});

// ---------- recent runs ----------
let runsCursor = null;

function markCurrentRun() {
  for (const a of document.querySelectorAll('#recent-runs a[data-run-id]')) {
    if (current && a.dataset.runId === current.id) a.setAttribute('aria-current', 'true');
    else a.removeAttribute('aria-current');
  }
}

// The list request on its way: a second press of "Show more" (or a refresh) while one is answered must not append
// the same page twice; the newest request's answer is the one shown.
let runsRequest = 0;

async function loadRecentRuns(append = false) {
  const list = $('recent-runs');
  if (!keyStore.get()) {
    $('runs-status').textContent = 'Save an API key to see recent runs.';
    return;
  }
  if (append && list.getAttribute('aria-busy') === 'true') return;
  const epoch = keyEpoch;
  const request = ++runsRequest;
  list.setAttribute('aria-busy', 'true');
  $('more-runs').setAttribute('aria-disabled', 'true');
  try {
    const page = await listRuns({ limit: 10, cursor: append ? runsCursor : undefined });
    if (epoch !== keyEpoch || request !== runsRequest) return; // read with a key since replaced, or a newer request made
    const items = Array.isArray(page && page.items) ? page.items : [];
    renderRecentRuns(list, items, current && current.id, append);
    runsCursor = (page && page.nextCursor) || null;
    $('more-runs').hidden = !runsCursor;
    $('runs-status').textContent = list.children.length ? '' : 'No runs yet.';
  } catch (err) {
    if (epoch === keyEpoch) $('runs-status').textContent = describe(err);
  } finally {
    if (request === runsRequest) {
      list.removeAttribute('aria-busy');
      $('more-runs').removeAttribute('aria-disabled');
    }
  }
}

$('refresh-runs').addEventListener('click', () => loadRecentRuns());
$('more-runs').addEventListener('click', () => loadRecentRuns(true));
$('recent-runs').addEventListener('click', (e) => {
  const a = e.target.closest('a[data-run-id]');
  // Re-clicking the open run restarts its polling (the hash would not change, so no hashchange fires).
  if (a && current && a.dataset.runId === current.id) {
    e.preventDefault();
    openRun(current.id);
  }
});

$('skip-link').addEventListener('click', (e) => { e.preventDefault(); $('main').focus(); });

// ---------- start ----------
showKeyStatus();
loadRecentRuns();
const initialId = runIdFromHash();
if (initialId) {
  if (keyStore.get()) openRun(initialId);
  else $('run-empty').textContent = 'Save your API key to resume the run in the address bar.';
}
