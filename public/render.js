// render.js: builds DOM from API data; untrusted text only ever goes in via text nodes, never innerHTML.

export const SUBSCORES = [
  ['hardSkills', 'Hard skills', 30],
  ['domain', 'Domain', 20],
  ['seniority', 'Seniority', 15],
  ['impact', 'Impact', 15],
  ['logistics', 'Logistics', 10],
  ['trajectory', 'Trajectory', 10],
];
const SUBSCORE_LABEL = Object.fromEntries(SUBSCORES.map(([k, label]) => [k, label]));

const STOP_REASONS = {
  target_reached: 'Target number of strong candidates reached',
  reflector: 'The reviewer judged that another iteration would not help',
  max_iterations: 'Maximum number of iterations reached',
  budget: 'Token or cost budget used up',
  exhausted: 'No further candidates to retrieve',
  cancelled: 'Cancelled',
  error: 'Stopped by an error',
};

const EVENT_LABELS = {
  'run.queued': 'Run queued',
  'run.started': 'Run started',
  'run.resumed': 'Run resumed after an interruption',
  'run.retrying': 'Run will be retried',
  'iteration.started': 'Iteration started',
  'queries.expanded': 'Search queries expanded',
  'candidates.retrieved': 'Candidates retrieved',
  'candidates.reranked': 'Candidates re-ranked',
  'candidate.scored': 'Candidate scored',
  'candidate.unscored': 'Candidate could not be scored',
  'candidates.scored': 'Candidates scored',
  'iteration.reflected': 'Iteration reviewed',
  'run.stopped': 'Run stopped',
  'run.failed': 'Run failed',
};

// el('p', { class: 'x' }, 'text', child): strings become text nodes through append(), so they cannot inject markup.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
export const fmtNum = (v) => (isNum(v) ? v.toLocaleString('en-US') : '—');
const fmtUsd = (v) => (isNum(v) ? `$${v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 })}` : '—');

export function timeEl(iso, withDate = true) {
  if (!iso) return el('span', {}, '—');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return el('span', {}, String(iso));
  const text = withDate ? d.toLocaleString() : d.toLocaleTimeString();
  return el('time', { datetime: String(iso), title: d.toISOString() }, text);
}

function dlRows(dl, rows) {
  dl.replaceChildren(...rows.flatMap(([label, value]) => [el('dt', {}, label), el('dd', {}, value)]));
}

// Ties the hidden/visible state and text of the run summary to one run object.
export function renderRun(dom, run, roleTitle = null) {
  const status = String(run.status || 'unknown');
  // Only touch the live region when the word changes, so screen readers announce changes, not polls.
  if (dom.status.textContent !== status) dom.status.textContent = status;
  dom.status.dataset.status = status;
  dom.runId.textContent = String(run.id || '');
  dlRows(dom.meta, [
    ['Engine', String(run.engine || '—')],
    ['Role', roleTitle ? el('span', {}, roleTitle, ' ', el('span', { class: 'muted' }, `(${String(run.roleId)})`)) : String(run.roleId || '—')],
    ['Strong at', run.params && isNum(run.params.scoreThreshold) ? `a total of ${run.params.scoreThreshold} or more` : '—'],
    ['Created', timeEl(run.createdAt)],
    ['Started', timeEl(run.startedAt)],
    ['Finished', timeEl(run.finishedAt)],
  ]);

  const p = run.progress || {};
  const bar = isNum(p.maxIterations) && p.maxIterations > 0
    ? el('progress', { max: p.maxIterations, value: isNum(p.iteration) ? Math.min(p.iteration, p.maxIterations) : 0, 'aria-label': 'Iterations' })
    : null;
  dlRows(dom.progress, [
    ['Iteration', el('span', {}, `${fmtNum(p.iteration)} / ${fmtNum(p.maxIterations)} `, bar)],
    ['Candidates seen', fmtNum(p.candidatesSeen)],
    ['Candidates scored', fmtNum(p.candidatesScored)],
    ['Strong candidates', fmtNum(p.strongCandidates)],
  ]);

  // Changes once an iteration or a strong candidate, not on every poll, so it is fit for a live region.
  const summary = progressSummary(status, p);
  if (dom.progressSummary.textContent !== summary) dom.progressSummary.textContent = summary;

  renderStop(dom.stop, run.stop);

  const u = run.usage || {};
  dlRows(dom.usage, [
    ['LLM calls', fmtNum(u.llmCalls)],
    ['Total tokens', `${fmtNum(u.totalTokens)} (${fmtNum(u.promptTokens)} prompt, ${fmtNum(u.completionTokens)} completion)`],
    ['Cost', fmtUsd(u.costUsd)],
  ]);

  if (run.error) {
    dom.error.replaceChildren(
      el('h3', {}, 'Error'),
      el('p', { class: 'problem-title' }, String(run.error.title || 'The run failed')),
      run.error.detail ? el('p', {}, String(run.error.detail)) : null,
    );
    dom.error.hidden = false;
  } else {
    dom.error.hidden = true;
    dom.error.replaceChildren();
  }

  dom.cancel.hidden = !(status === 'queued' || status === 'running');
  renderShortlist(dom.shortlist, Array.isArray(run.shortlist) ? run.shortlist : [], dom.shortlistEmpty, status);
}

function progressSummary(status, p) {
  if (status === 'queued') return 'Queued: waiting to start.';
  const n = isNum(p.strongCandidates) ? p.strongCandidates : 0;
  const strong = `${n} strong candidate${n === 1 ? '' : 's'}`;
  const iteration = isNum(p.iteration) && p.iteration > 0 ? `iteration ${p.iteration} of ${fmtNum(p.maxIterations)}` : null;
  if (status === 'running') return iteration ? `Running ${iteration}: ${strong} so far.` : `Running: ${strong} so far.`;
  const verb = status === 'succeeded' ? 'Finished' : 'Stopped';
  return iteration ? `${verb} after ${iteration}: ${strong}.` : `${verb}: ${strong}.`;
}

function renderStop(node, stop) {
  if (!stop) {
    delete node.dataset.reason;
    node.replaceChildren(el('p', { class: 'muted' }, 'Not stopped yet.'));
    return;
  }
  const reason = String(stop.reason || 'unknown');
  node.dataset.reason = reason;
  node.replaceChildren(
    el('p', {},
      el('strong', {}, STOP_REASONS[reason] || 'Stopped'), ' ',
      el('code', { class: 'stop-code' }, reason),
      isNum(stop.iteration) ? ` (iteration ${stop.iteration})` : ''),
    stop.reasoning ? el('p', { class: 'reasoning' }, String(stop.reasoning)) : null,
  );
}

function candidateLabel(entry) {
  if (entry.name) return String(entry.name);
  if (entry.externalId) return String(entry.externalId);
  return `Candidate ${entry.candidateId || 'unknown'}`;
}

function subscoreBar(key, label, max, value) {
  const v = isNum(value) ? Math.max(0, Math.min(max, value)) : 0;
  const fill = el('span', { class: 'fill' });
  fill.style.width = `${(v / max) * 100}%`; // CSSOM, not an inline style attribute, so a strict CSP still allows it
  return el('div', {
    class: 'subscore-bar', 'data-subscore': key, role: 'meter',
    'aria-valuemin': 0, 'aria-valuemax': max, 'aria-valuenow': v,
    'aria-valuetext': `${isNum(value) ? value : 'no score'} of ${max}`, 'aria-label': label,
  },
  el('span', { class: 'subscore-label', 'aria-hidden': 'true' }, label),
  el('span', { class: 'track', 'aria-hidden': 'true' }, fill),
  el('span', { class: 'subscore-value', 'aria-hidden': 'true' }, `${isNum(value) ? value : '—'} / ${max}`));
}

function entryBody(entry, headingId) {
  const subs = entry.subscores || {};
  const evidence = Array.isArray(entry.evidence) ? entry.evidence : [];
  const noName = !entry.name;
  return [
    // Text from outside (names, ids, the model's words) is isolated from the page's own (<bdi>, dir="auto"): a
    // right-to-left override in an id ("ats-\u202E9911") would otherwise reverse the labels that follow it.
    el('h4', { id: headingId, class: 'candidate-name' }, el('span', { class: 'rank-badge' }, 'Rank ', el('span', { class: 'rank' })), ' ', el('bdi', {}, candidateLabel(entry))),
    el('p', { class: 'candidate-meta' },
      entry.externalId && !noName ? [el('bdi', {}, String(entry.externalId)), ' · '] : '',
      noName ? 'Name unavailable (erased or not given) · ' : '',
      `found in iteration ${isNum(entry.iteration) ? entry.iteration : '—'}`),
    el('p', { class: 'total' }, 'Total score ', el('span', { class: 'total-score' }, isNum(entry.totalScore) ? String(entry.totalScore) : '—'), ' / 100'),
    el('div', { class: 'subscores' }, SUBSCORES.map(([k, label, max]) => subscoreBar(k, label, max, subs[k]))),
    entry.rationale ? el('p', { class: 'rationale', dir: 'auto' }, String(entry.rationale)) : null,
    evidence.length ? el('h5', {}, 'Evidence') : null,
    evidence.length ? el('ul', { class: 'evidence' }, evidence.map((ev) => el('li', { class: ev.verified === false ? 'unverified' : '' },
      el('span', { class: 'evidence-subscore' }, SUBSCORE_LABEL[ev.subscore] || String(ev.subscore || 'General')), ': ',
      el('q', { dir: 'auto' }, String(ev.quote || '')),
      ev.verified === false ? el('strong', { class: 'flag' }, ' Unverified quote: not confirmed in the candidate’s text') : null,
    ))) : null,
  ];
}

// Keyed update: entries keep their node (and any focus inside) unless their content changed.
function renderShortlist(ol, entries, emptyNote, status) {
  const existing = new Map([...ol.children].map((li) => [li.dataset.key, li]));
  const keep = new Set();
  entries.forEach((entry, i) => {
    const key = String(entry.candidateId || entry.externalId || `rank-${i}`);
    const { rank: _rank, ...rest } = entry;
    const sig = JSON.stringify(rest);
    let li = existing.get(key);
    if (!li) {
      li = el('li', { class: 'shortlist-entry', 'data-key': key });
      existing.set(key, li);
    }
    const headingId = `cand-${key.replace(/[^A-Za-z0-9_-]/g, '')}`;
    if (li.dataset.sig !== sig) {
      li.replaceChildren(...entryBody(entry, headingId).filter(Boolean));
      li.dataset.sig = sig;
      li.setAttribute('aria-labelledby', headingId);
    }
    li.querySelector('.rank').textContent = String(isNum(entry.rank) ? entry.rank : i + 1);
    li.dataset.rank = String(isNum(entry.rank) ? entry.rank : i + 1);
    if (entry.candidateId) li.dataset.candidateId = String(entry.candidateId);
    if (ol.children[i] !== li) ol.insertBefore(li, ol.children[i] || null);
    keep.add(key);
  });
  for (const [key, li] of existing) if (!keep.has(key)) li.remove();
  emptyNote.hidden = entries.length > 0;
  emptyNote.textContent = status === 'queued' || status === 'running' ? 'No candidates scored yet.' : 'No candidates were shortlisted.';
}

function summarize(data) {
  if (data === null || data === undefined) return '';
  if (typeof data !== 'object') return String(data).slice(0, 160);
  const parts = [];
  for (const [k, v] of Object.entries(data).slice(0, 6)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v)) {
      const simple = v.every((x) => typeof x === 'string' || typeof x === 'number');
      const joined = simple ? v.join(', ') : '';
      parts.push(`${k}: ${simple && joined.length <= 80 ? joined : `${v.length} items`}`);
    } else if (typeof v === 'object') parts.push(`${k}: {…}`);
    else parts.push(`${k}: ${String(v).slice(0, 80)}`);
  }
  return parts.join(' · ');
}

export function appendEvents(ol, items) {
  for (const ev of items) {
    const type = String(ev.type || 'event');
    const summary = summarize(ev.data);
    const hasData = ev.data && typeof ev.data === 'object' && Object.keys(ev.data).length > 0;
    ol.append(el('li', { class: 'event', 'data-seq': ev.seq, 'data-type': type },
      el('span', { class: 'event-head' }, timeEl(ev.at, false), ' ', el('strong', {}, EVENT_LABELS[type] || type), ' ', el('code', {}, type)),
      summary ? el('span', { class: 'event-summary' }, summary) : null,
      hasData ? el('details', {}, el('summary', {}, `Data of event ${ev.seq}`), el('pre', {}, JSON.stringify(ev.data, null, 2))) : null,
    ));
  }
}

export function problemNodes(problem, linkFor) {
  const errs = problem.errors || [];
  return [
    el('p', { class: 'problem-title' }, problem.title),
    problem.detail ? el('p', {}, problem.detail) : null,
    errs.length ? el('ul', {}, errs.map((e) => {
      const text = `${e.path ? `${e.path}: ` : ''}${e.message || 'is not valid'}`;
      const link = linkFor ? linkFor(e, text) : null;
      return el('li', {}, link || text);
    })) : null,
  ].filter(Boolean);
}

export function renderRecentRuns(ul, items, currentId, append) {
  const nodes = items.map((run) => {
    const p = run.progress || {};
    const id = String(run.id || '');
    return el('li', {},
      el('a', { href: `#run=${encodeURIComponent(id)}`, class: 'recent-run', 'data-run-id': id, 'aria-current': id === currentId ? 'true' : null },
        el('span', { class: 'badge', 'data-status': String(run.status || '') }, String(run.status || 'unknown')), ' ',
        timeEl(run.createdAt), ' ',
        el('span', { class: 'muted' }, `${run.progress ? `· ${fmtNum(p.strongCandidates)} strong ` : ''}· ${id.slice(0, 8)}`)));
  });
  if (append) ul.append(...nodes);
  else ul.replaceChildren(...nodes);
}
