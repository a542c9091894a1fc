// edge.js: "fit at the edge": how far the setup goes (the largest micro-batch, sequence, number
// of generated tokens or, for a video pipeline, of frames that fits, from the core's fit), peak reserved memory against each (the
// core's sweep, drawn by chart.js; a click on a point uses that value), and for training the
// setups that fit the same global batch, fastest first (the core's recommend, each with Apply).
//
// All of it is computed by the core in a second worker (the planner), after the estimate is
// drawn and only for the latest setup: a slow search never delays an estimate, and a setup that
// changed meanwhile is not searched at all.
import * as O from './options.js';
import * as S from './setup.js';
import { CoreClient } from './core-client.js';
import { h, fmtBytes } from './view.js';
import { sweepChart } from './chart.js';
import { $ } from './fields.js';
import { store, page, presetType, isPipelinePreset } from './store.js';

const DEBOUNCE_MS = 150;
const LABELS = {
  train: { batch: 'micro-batch', seq: 'sequence length', frames: 'frames' },
  infer: { batch: 'batch', seq: 'prompt length', new_tokens: 'generated tokens', frames: 'frames' },
};
const HEADS = {
  train: { batch: 'Largest micro-batch that fits', seq: 'Longest sequence that fits', frames: 'Most video frames that fit' },
  infer: { batch: 'Largest batch that fits', seq: 'Longest prompt that fits', new_tokens: 'Most generated tokens that fit', frames: 'Most video frames that fit' },
};

let planner = null;
let features = null;
let gen = 0;
let timer = 0;
let running = false;
let pending = null;
let recommend = null; // the recommend@1 drawn, for Apply
let globalBatch = 0;  // the global batch typed above the list (0: the plan's)
let lastJob = null;   // the setup searched last
export const timings = { startedMs: null, lastMs: null };

/** The setup's value of a workload field (a number; NaN when left to the default). */
function currentValue(s, field) {
  const w = s.workload;
  const v = field === 'seq' ? (w.mode === 'infer' ? w.prompt : w.seq) : w[field];
  return typeof v === 'number' ? v : v === '' || v == null ? NaN : Number(v);
}

/** Sets a workload value as if typed (a point of a chart, "Use"). */
function useValue(field, value) {
  const id = field === 'batch' || field === 'frames' ? field : field === 'new_tokens' ? 'new-tokens' : store.state.workload.mode === 'infer' ? 'prompt' : 'seq';
  $(id).value = String(value);
  page.onChange();
}

/** The planner worker, started on the first search (after the first estimate is drawn). */
async function startPlanner() {
  if (!planner) {
    timings.startedMs = performance.now();
    planner = new CoreClient(new URL('./worker.js', import.meta.url));
    window.__vramplan.planner = planner;
    const init = await planner.init();
    features = init.features || {};
  }
  return planner;
}

/** After each drawn estimate: search this plan (the latest only). */
export function schedule(planText, state) {
  gen += 1;
  pending = { gen, planText, mode: state.workload.mode, state };
  for (const id of ['edge', 'recommend']) $(id).classList.add('busy');
  clearTimeout(timer);
  timer = setTimeout(runPending, DEBOUNCE_MS);
}

/** The estimate failed or waits for input: what is drawn is older than the form. */
export function stale() {
  gen += 1;
  pending = null;
  clearTimeout(timer);
  for (const id of ['edge', 'recommend']) $(id).classList.add('stale');
  for (const b of document.querySelectorAll('#edge button, #recommend button.apply')) b.disabled = true;
}

async function runPending() {
  if (running || !pending) return;
  const job = pending;
  pending = null;
  running = true;
  try {
    await search(job);
  } catch (e) {
    if (job.gen === gen) $('edge').replaceChildren(h('p', { class: 'muted' }, `The search did not run: ${e.message || e}`));
  } finally {
    running = false;
    if (pending) runPending();
  }
}

// How long one search may take before the planner worker is ended and the answer is "not
// worked out" (a generation of hundreds of thousands of tokens can take the core that long).
const LIMIT_MS = { fit: 8000, sweep: 8000, recommend: 20000 };

/** One search in the planner: its JSON, or {"error"} when it failed or ran out of time. */
async function ask(kind, ...args) {
  const core = await startPlanner();
  try {
    return JSON.parse((await core[kind](...args, LIMIT_MS[kind])).text);
  } catch (e) {
    return { error: { code: 'page', message: `Not worked out: the search stopped after ${LIMIT_MS[kind] / 1000} s (${e.message || e}).` } };
  }
}

async function search(job) {
  await startPlanner();
  lastJob = job;
  if (job.gen !== gen) return;
  if (!features.fit) { // a build without the planning functions: nothing to show
    for (const id of ['edge', 'recommend']) $(id).replaceChildren();
    return;
  }
  const t0 = performance.now();
  // the numbers first, then the charts (micro-batch and sequence, or frames), then the slow ones; a diffusion
  // pipeline's tokens come from its video size, so its second value is the frames (none for an image model)
  const fields = S.isDiffusionSetup(job.state, isPipelinePreset) ? ['batch', 'frames']
    : job.mode === 'infer' ? ['batch', 'seq', 'new_tokens'] : ['batch', 'seq'];
  const fits = {};
  const sweeps = {};
  const draw = () => renderEdge(job, fields, fits, sweeps);
  const steps = [
    ...fields.filter((f) => f !== 'new_tokens').map((f) => async () => { fits[f] = await ask('fit', job.planText, f); }),
    ...(features.sweep ? fields.filter((f) => f !== 'new_tokens').map((f) => async () => { sweeps[f] = await ask('sweep', job.planText, f, 0); }) : []),
    ...(fields.includes('new_tokens') ? [async () => { fits.new_tokens = await ask('fit', job.planText, 'new_tokens'); }] : []),
  ];
  for (const step of steps) {
    await step();
    if (job.gen !== gen) return;
    draw();
  }
  if (job.mode === 'train' && features.recommend) {
    const rec = await ask('recommend', job.planText, globalBatch);
    if (job.gen !== gen) return;
    renderRecommend(rec);
  } else {
    recommend = null;
    $('recommend').replaceChildren();
  }
  for (const id of ['edge', 'recommend']) $(id).classList.remove('busy', 'stale');
  timings.lastMs = performance.now() - t0;
  document.documentElement.dataset.edge = String(job.gen);
}

// ---- drawing ----------------------------------------------------------------------------------------
function fitLine(field, fit, job) {
  const head = HEADS[job.mode][field];
  const now = currentValue(job.state, field);
  if (!fit) return h('div', { class: 'edge-value', 'data-field': field }, h('dt', {}, head), h('dd', { class: 'muted' }, '…'));
  if (fit.error?.path === 'workload.frames' && fit.error.code === 'field') return null; // an image model: no frames
  if (fit.error) {
    return h('div', { class: 'edge-value', 'data-field': field }, h('dt', {}, head), h('dd', { class: 'muted' }, fit.error.message));
  }
  const next = fit.next || {};
  const why = next.limited_by === 'memory'
    ? [`${Number(next.value).toLocaleString('en-US')} would need `, fmtBytes(next.over_bytes), ' more than the ', fmtBytes(next.usable_bytes), ' usable',
      next.top_component ? ` (largest: ${next.top_component.label} ${fmtBytes(next.top_component.bytes)})` : '', '.']
    : next.limited_by === 'limit' ? [fit.limit_reason || 'the most a plan allows', '.'] : [];
  const gaps = Array.isArray(fit.gaps) && fit.gaps.length
    ? ` Not at ${fit.gaps.slice(0, 4).map((g) => Number(g).toLocaleString('en-US')).join(', ')}${fit.gaps.length > 4 ? ', …' : ''}: memory is not monotone there.` : '';
  return h('div', { class: `edge-value${fit.value >= 1 ? '' : ' none'}`, 'data-field': field },
    h('dt', {}, head),
    h('dd', {},
      fit.value >= 1
        ? [h('strong', { 'data-key': 'fit-value', 'data-value': fit.value }, Number(fit.value).toLocaleString('en-US')),
          Number.isFinite(now) ? h('span', { class: 'muted' }, ` · now ${Number(now).toLocaleString('en-US')}`) : null,
          fit.value !== now ? [' ', h('button', { type: 'button', class: 'secondary use', 'data-use': field, 'data-value': fit.value }, `Use ${Number(fit.value).toLocaleString('en-US')}`)] : null]
        : h('strong', { 'data-key': 'fit-value', 'data-value': 0 }, 'none: not even 1 fits')),
    why.length || gaps ? h('dd', { class: 'muted next' }, why, gaps) : null);
}

function renderEdge(job, fields, fits, sweeps) {
  const root = $('edge');
  const focused = root.contains(document.activeElement) ? document.activeElement : null;
  const refocus = focused ? { field: focused.closest('[data-field]')?.dataset.field, value: focused.dataset.value, use: focused.dataset.use } : null;
  const charts = fields.filter((f) => sweeps[f] && !sweeps[f].error).map((f) => h('figure', { class: 'chart', 'data-field': f },
    sweepChart(sweeps[f], { label: LABELS[job.mode][f], current: currentValue(job.state, f), onPick: (v) => useValue(f, v) }),
    h('figcaption', { class: 'muted' }, `Peak reserved memory against ${LABELS[job.mode][f]}; the dashed line is the usable memory. Click a point to use it.`)));
  root.replaceChildren(h('section', { class: 'card edge', 'aria-labelledby': 'edge-title' },
    h('h3', { id: 'edge-title' }, 'At the edge'),
    h('dl', { class: 'edge-values' }, fields.map((f) => fitLine(f, fits[f], job))),
    charts.length ? h('div', { class: 'charts' }, charts) : null));
  if (refocus) {
    const sel = refocus.use ? `button[data-use="${refocus.use}"]` : `[data-field="${refocus.field}"] .point[data-value="${refocus.value}"]`;
    (root.querySelector(sel) || root.querySelector(`[data-field="${refocus.field}"] .point`))?.focus();
  }
}

const CKPT = (k) => (k === 0 ? 'no checkpointing' : k === 1 ? 'checkpointing every block' : `checkpointing every ${k}th block`);
const label = (list, value) => list.find((o) => o.value === value)?.label || value;
function optimizerLabel(e) {
  const withImpl = `${e.optimizer}/${e.optim_impl}`;
  return O.OPTIMIZERS.some((o) => o.value === withImpl) ? label(O.OPTIMIZERS, withImpl) : label(O.OPTIMIZERS, e.optimizer);
}
const describe = (e) => `micro-batch ${e.micro_batch} × ${e.grad_accum} accumulation · ${CKPT(e.grad_ckpt_every)} · ${label(O.PRECISIONS, e.precision)} · ${optimizerLabel(e)}`;

const SHOWN = 3; // entries listed before "N more"

function entryItem(e, i) {
  return h('li', { 'data-rank': e.rank },
    h('span', { class: 'rank' }, String(e.rank)),
    h('span', { class: 'what' }, describe(e)),
    h('span', { class: 'effect muted' }, fmtBytes(e.estimate.peak_reserved_bytes), ' reserved of ', fmtBytes(e.estimate.usable_bytes), ' usable · ',
      fmtBytes(e.estimate.headroom_bytes), ' headroom'),
    h('button', { type: 'button', class: 'apply secondary', 'data-recommend': i, 'aria-label': `Apply setup ${e.rank}: ${describe(e)}` }, 'Apply'));
}

function renderRecommend(rec) {
  const root = $('recommend');
  recommend = rec.error ? null : rec;
  const batchInput = h('input', {
    type: 'number', id: 'recommend-batch', min: 1, step: 1, inputmode: 'numeric', class: 'inline-number',
    value: globalBatch || null, placeholder: rec.error ? '' : String(rec.global_batch),
  });
  const head = h('p', {}, h('label', { for: 'recommend-batch' }, 'For a global batch of '), batchInput,
    rec.error ? null : ` (micro-batch × gradient accumulation × ${rec.dp} data-parallel rank${rec.dp > 1 ? 's' : ''}); the core estimated ${rec.estimates} of ${rec.setups} setups.`);
  if (rec.error) {
    root.replaceChildren(h('section', { class: 'card recommend' }, h('h3', {}, 'Setups that fit, fastest first'), head,
      h('p', { class: 'muted', 'data-key': 'recommend-error' }, rec.error.message)));
    return;
  }
  const entries = rec.entries || [];
  const win = rec.winner;
  const list = (from, to) => h('ol', { class: 'recommend-list', start: from + 1 }, entries.slice(from, to).map((e, k) => entryItem(e, from + k)));
  root.replaceChildren(h('section', { class: 'card recommend', 'aria-labelledby': 'recommend-title' },
    h('h3', { id: 'recommend-title' }, `Setups that fit a global batch of ${Number(rec.global_batch).toLocaleString('en-US')}, fastest first`),
    head,
    entries.length ? list(0, SHOWN) : h('p', {}, 'No setup of this model fits this GPU at this global batch.'),
    entries.length > SHOWN ? h('details', { class: 'more-setups' }, h('summary', {}, `${entries.length - SHOWN} more`), list(SHOWN, entries.length)) : null,
    h('details', { class: 'ranking' }, h('summary', {}, 'How they are ranked'), h('p', { class: 'muted' }, `${rec.order}.`)),
    win ? h('details', { class: 'winner' }, h('summary', {}, win.script_flags ? 'The first as diffusers / finetrainers script flags' : 'The first as Hugging Face TrainingArguments'),
      h('pre', {}, win.script_flags || win.training_arguments), win.env ? h('pre', {}, win.env) : null) : null));
}

/** Another global batch: the list again, for the same setup. */
async function rerunRecommend() {
  const v = Number($('recommend-batch').value);
  globalBatch = Number.isInteger(v) && v >= 1 ? v : 0;
  const job = lastJob;
  if (!job || job.gen !== gen || !planner) return;
  $('recommend').classList.add('busy');
  const rec = await ask('recommend', job.planText, globalBatch);
  if (job.gen !== gen) return;
  renderRecommend(rec);
  $('recommend').classList.remove('busy');
}

/** Apply: the entry's plan (the core wrote the setup in) becomes the form's; Undo brings the old one back. */
function applyEntry(i) {
  const e = recommend?.entries?.[i];
  if (!e) return;
  const res = S.planToState(e.plan, presetType);
  if (res.invalid.length) {
    page.setStatus(`The form cannot hold ${res.invalid.slice(0, 3).join(', ')} of that setup.`);
    return;
  }
  // names the page gave automatically stay automatic
  const names = S.instanceNames(store.state);
  res.state.instances.forEach((x, j) => {
    const prev = store.state.instances[j];
    if (prev && !String(prev.name).trim() && x.name === names[j]) x.name = '';
  });
  res.state.name = store.state.name;
  res.state.note = store.state.note;
  const before = { state: structuredClone(store.state), active: store.active };
  page.replaceSetup(res.state, Math.min(store.active, res.state.instances.length - 1));
  page.offerUndo(`Applied setup ${e.rank}: ${describe(e)}.`, before);
}

export function wire() {
  $('edge').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-use]');
    if (b && !b.disabled) useValue(b.dataset.use, Number(b.dataset.value));
  });
  $('recommend').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-recommend]');
    if (b && !b.disabled) applyEntry(Number(b.dataset.recommend));
  });
  $('recommend').addEventListener('change', (ev) => {
    if (ev.target.id === 'recommend-batch') rerunRecommend();
  });
}
