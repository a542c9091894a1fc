// controller.js: the page's controller. Reads the form into the setup, asks the worker for an
// estimate on every change (lightly debounced), draws the answer, keeps the share link.
//
// Each card's fields live in cards/*.js (model, instances, workload, gpu, parallel); files
// and drops in drop.js; examples and plan files in plan-files.js; the state they share in
// store.js. The core's suggestions become form changes (setup.js applySuggestion).
//
// No memory arithmetic here: the plan goes to the WebAssembly core in worker.js and every
// number on the page comes back in the estimate JSON.

import * as O from './options.js';
import * as S from './setup.js';
import { buildPlan, InputError } from './plan.js';
import { encodeShare, decodeShare, ShareError } from './share.js';
import { renderVerdict, renderVerdictMessage, renderMiniVerdict, renderDevices, renderSuggestions, renderWarnings, renderCompare } from './view.js';
import { CoreClient } from './core-client.js';
import { $, fieldMsg, clearFieldMessages, showFieldMessage, applyShowRules, readBound, writeBound } from './fields.js';
import { store, page, inst, modelTypeOf, gpuCount, planInfo, pickDefault, withComponents, isPipelinePreset, presetType } from './store.js';
import { settingDiffs } from './compare.js';
import * as model from './cards/model.js';
import * as hub from './hub.js';
import * as instances from './cards/instances.js';
import * as workload from './cards/workload.js';
import * as gpu from './cards/gpu.js';
import * as parallel from './cards/parallel.js';
import * as drop from './drop.js';
import * as planFiles from './plan-files.js';
import * as edge from './edge.js';

const STORAGE_KEY = 'vramplan.setup.v2';
const OLD_STORAGE_KEY = 'vramplan.setup.v1';
const DEBOUNCE_MS = 40;

store.state = structuredClone(O.DEFAULT_STATE);
let pinned = null;           // {state, estimate}
let current = null;          // {state, estimate} of the last good estimate
let stale = false;           // the last estimate failed: what is drawn is older than the form
let undoState = null;        // {state, active} before the last change that offers Undo
let latestId = 0;
let estimateTimer = 0;
let linkTimer = 0;
const core = new CoreClient(new URL('./worker.js', import.meta.url));

// Timings the tests and benchmarks read (window.__vramplan).
const perf = { firstEstimateMs: null, estimates: 0, lastCoreMs: null };
window.__vramplan = {
  perf,
  core,
  get state() { return structuredClone(store.state); },
  get active() { return store.active; },
  plan: () => buildPlan(store.state, planInfo()),
  edge: edge.timings,
};

// ---- form ↔ setup ---------------------------------------------------------------------------
function readForm() {
  const s = store.state;
  const x = inst();
  model.read(x);
  instances.read(x);
  workload.read(s);
  gpu.read(s);
  readBound(s);
}

function writeForm() {
  const s = store.state;
  if (store.active >= s.instances.length) store.active = s.instances.length - 1;
  const x = inst();
  model.write(x);
  instances.write(x);
  workload.write(s);
  gpu.write(s);
  parallel.write(s);
  writeBound(s);
  syncVisibility();
}

function syncVisibility() {
  const s = store.state;
  const x = inst();
  const mode = s.workload.mode;
  applyShowRules({
    ...model.showVals(x, mode),
    ...instances.showVals(x),
    ...workload.showVals(s),
    ...gpu.showVals(s),
    ...parallel.showVals(s),
  });
  model.sync(x);
  instances.sync(x, mode);
}

// ---- estimate ---------------------------------------------------------------------------------
/** The field a core error path points at: {id, instance} (see options.js ERROR_FIELDS). */
function fieldForPath(path) {
  const { state } = store;
  if (!path) return { id: null, instance: null };
  const m = /^instances\[(\d+)\](?:\.(.*))?$/.exec(path);
  if (m) {
    const i = Number(m[1]);
    const rest = m[2] || '';
    for (const [prefix, id] of O.INSTANCE_ERROR_FIELDS) {
      if (!rest.startsWith(prefix)) continue;
      if (id === 'custom-') {
        const key = rest.slice(prefix.length).split(/[.[]/)[0];
        const el = document.querySelector(`[data-custom="${CSS.escape(key)}"]`);
        return { id: el ? el.id : 'model-fieldset', instance: i };
      }
      if (id === 'precision' && state.workload.mode === 'infer') return { id: 'infer-precision', instance: i };
      if (id === 'base-quant' && state.workload.mode === 'train' && state.instances[i]?.finetune === 'qlora') return { id: 'quant-4bit', instance: i };
      return { id, instance: i };
    }
    return { id: 'model-fieldset', instance: i };
  }
  if (path.startsWith('workload.seq')) return { id: state.workload.mode === 'infer' ? 'prompt' : 'seq', instance: null };
  for (const [prefix, id] of O.ERROR_FIELDS) {
    if (path.startsWith(prefix)) return { id, instance: null };
  }
  if (path.startsWith('instances')) return { id: 'model-fieldset', instance: null };
  return { id: null, instance: null };
}

function showError(field, message, path, code, instance = null) {
  clearFieldMessages();
  let shown;
  if (instance !== null && instance !== store.active && instance < store.state.instances.length) {
    // another instance's field: name it above the tabs and mark its tab
    const names = S.instanceNames(store.state);
    const msg = $('instances-msg');
    msg.textContent = `In “${names[instance]}”: ${message}`;
    msg.hidden = false;
    document.querySelector(`#instance-bar [data-instance="${instance}"]`)?.classList.add('invalid');
    shown = true;
  } else {
    shown = showFieldMessage(field, message);
  }
  renderVerdictMessage($('verdict'), 'error', 'Cannot estimate this setup',
    message, path ? `Field: ${path}${code ? ` · error: ${code}` : ''}` : shown ? null : code || null);
  markStale('error', '⚠ Cannot estimate this setup · why ↓');
}

/** What is drawn below the verdict is older than the form: dim it, disable its Apply buttons. */
function markStale(kind, miniText) {
  edge.stale();
  stale = true;
  for (const id of ['suggestions', 'devices', 'warnings']) $(id).classList.add('stale');
  for (const b of document.querySelectorAll('#suggestions button.apply')) b.disabled = true;
  $('stale-note').hidden = !current;
  const mini = $('mini-verdict');
  mini.className = `mini-verdict ${kind}`;
  mini.textContent = miniText;
  mini.hidden = false;
}

/** Something the plan needs is not there yet (a probe file, a config.json): ask for it. */
function showInvitation(title, message) {
  clearFieldMessages();
  renderVerdictMessage($('verdict'), 'invite', title, message);
  markStale('invite', `${title} · how ↓`);
}

function scheduleEstimate(delay = DEBOUNCE_MS) {
  clearTimeout(estimateTimer);
  estimateTimer = setTimeout(runEstimate, delay);
}

async function estimateOf(s) {
  const plan = buildPlan(s, planInfo());
  const reply = await core.estimate(JSON.stringify(plan));
  return { plan, reply, est: JSON.parse(reply.text) };
}

async function runEstimate() {
  const id = ++latestId;
  const snapshot = structuredClone(store.state);
  let result;
  try {
    result = await estimateOf(snapshot);
  } catch (e) {
    if (id !== latestId) return;
    if (e instanceof InputError && e.invite) showInvitation(e.invite, e.message);
    else if (e instanceof InputError) showError(e.field, e.message, null, null, e.instance);
    else showError(null, `The estimator failed: ${e.message || e}`);
    return;
  }
  if (id !== latestId) return; // a newer change is on its way
  const { est, reply } = result;
  perf.estimates += 1;
  perf.lastCoreMs = reply.ms;
  if (est && est.error) {
    const err = est.error;
    const f = fieldForPath(err.path);
    showError(f.id, err.message || 'The core refused this plan.', err.path, err.code, f.instance);
    return;
  }
  clearFieldMessages();
  current = { state: snapshot, estimate: est };
  render();
  edge.schedule(JSON.stringify(result.plan), snapshot); // how far it goes: in the planner worker, after this
  if (perf.firstEstimateMs === null) {
    perf.firstEstimateMs = performance.now();
    document.documentElement.dataset.ready = 'true';
  }
}

function render() {
  const est = current.estimate;
  stale = false;
  // a keyboard "Apply" leaves focus on a button this render replaces: keep it in the list
  const focusInList = $('suggestions').contains(document.activeElement);
  const probed = gpu.probedGpu(current.state);
  renderVerdict($('verdict'), est, { source: gpu.sourceLine(current.state), probed });
  renderMiniVerdict($('mini-verdict'), est);
  renderSuggestions($('suggestions'), est, { canApply: S.canApply });
  if (focusInList) ($('suggestions').querySelector('ol') || (!$('applied').hidden && $('undo')))?.focus();
  renderDevices($('devices'), est, { probed });
  renderWarnings($('warnings'), est);
  for (const id of ['suggestions', 'devices', 'warnings']) $(id).classList.remove('stale');
  $('stale-note').hidden = true;
  renderComparePanel();
}

// ---- changes with an Undo: Apply, New setup, a restored setup --------------------------------------
function hideApplied() {
  undoState = null;
  $('applied').hidden = true;
}

/** Says what just changed the whole setup, with Undo back to `before` ({state, active}). */
function offerUndo(text, before) {
  undoState = before;
  $('applied-text').textContent = text;
  $('applied').hidden = false;
}

/** The page's default setup: DEFAULT_STATE with the preferred preset model and GPU. */
function defaultSetup() {
  const s = structuredClone(O.DEFAULT_STATE);
  s.instances[0].model.preset = pickDefault(store.presets.models, O.PREFERRED_DEFAULTS.preset);
  s.hardware.gpu = pickDefault(store.presets.gpus, O.PREFERRED_DEFAULTS.gpu);
  if (!store.presets.models.length) s.instances[0].model.source = 'custom';
  return s;
}

/** Puts a whole setup in the form and estimates it. */
function replaceSetup(s, active = 0) {
  store.state = s;
  store.active = active;
  hideApplied();
  $('preset-search').value = '';
  writeForm();
  scheduleEstimate(0);
  scheduleLinkUpdate();
}

function newSetup() {
  const before = { state: structuredClone(store.state), active: store.active };
  replaceSetup(defaultSetup());
  offerUndo('New setup: the page’s defaults.', before);
  setStatus('New setup.');
}

function applySuggestionToForm(sugg) {
  const { state: next, applied, skipped } = S.applySuggestion(store.state, sugg, { presetType: planInfo().presetType, gpuCount: gpuCount() });
  if (!applied.length) {
    setStatus('The form already has that change.');
    return;
  }
  const before = { state: structuredClone(store.state), active: store.active };
  replaceSetup(next, Math.min(store.active, next.instances.length - 1));
  offerUndo(`Applied: ${sugg.change}.${skipped.length ? ` (Nothing to change for: ${skipped.join(', ')}.)` : ''}`, before);
}

function undo() {
  if (!undoState) return;
  replaceSetup(undoState.state, undoState.active);
  setStatus('Undone.');
}

// ---- compare ------------------------------------------------------------------------------------
function renderComparePanel() {
  const on = !!pinned;
  $('compare').hidden = !on;
  $('unpin').hidden = !on;
  $('pin').textContent = on ? 'Pin this setup instead' : 'Pin this setup to compare';
  if (on && current) renderCompare($('compare-body'), pinned, current, settingDiffs(pinned.state, current.state));
}

async function setPinned(p) {
  if (!p) {
    pinned = null;
  } else {
    try {
      const { est } = await estimateOf(p);
      pinned = est.error ? null : { state: p, estimate: est };
    } catch {
      pinned = null;
    }
  }
  renderComparePanel();
  scheduleLinkUpdate();
}

// ---- share link ------------------------------------------------------------------------------
function setStatus(text) {
  $('share-status').textContent = text;
  clearTimeout(setStatus.t);
  setStatus.t = setTimeout(() => { $('share-status').textContent = ''; }, 4000);
}

function showBanner(text) {
  $('banner-text').textContent = text;
  $('banner').hidden = false;
}

async function currentLink() {
  const frag = await encodeShare(store.state, pinned ? pinned.state : null);
  return { frag, url: `${location.origin}${location.pathname}${location.search}#${frag}` };
}

// Encoding is asynchronous (deflate): an encode that started before a later one may finish after it, so each
// write carries the number of its request and only the latest request writes the address bar and storage.
let linkSeq = 0;

/** The address bar and the saved setup get frag, unless a newer request (seq) has started since. */
function writeLink(seq, frag) {
  if (seq !== linkSeq) return; // a newer setup's link is on its way
  history.replaceState(null, '', `#${frag}`);
  try {
    localStorage.setItem(STORAGE_KEY, frag);
  } catch { /* storage full or unavailable: the link still works from the button */ }
}

function scheduleLinkUpdate() {
  clearTimeout(linkTimer);
  linkTimer = setTimeout(async () => {
    const seq = ++linkSeq;
    try {
      writeLink(seq, (await currentLink()).frag);
    } catch { /* an encoding error: the button reports it */ }
  }, 300);
}

async function copyLink() {
  const seq = ++linkSeq;
  const { frag, url } = await currentLink();
  writeLink(seq, frag);
  try {
    await navigator.clipboard.writeText(url);
    setStatus('Link copied.');
  } catch {
    setStatus('Copy it from the address bar.');
  }
}

async function copyPlan() {
  try {
    const plan = buildPlan(store.state, planInfo());
    const text = JSON.stringify(plan, null, 2);
    try {
      await navigator.clipboard.writeText(text);
      setStatus('Plan JSON copied.');
    } catch {
      setStatus('Clipboard blocked by the browser.');
    }
  } catch (e) {
    setStatus(e.message);
  }
}

/** Applies a link; a bad one leaves the current setup as it is. */
async function applyFragment(fragment) {
  try {
    const { state: s, pinned: p } = await decodeShare(fragment);
    replaceSetup(s);
    $('banner').hidden = true;
    await setPinned(p);
    return true;
  } catch (e) {
    const msg = e instanceof ShareError ? e.message : 'The link could not be read.';
    showBanner(`${msg} Your current setup is unchanged.`);
    return false;
  }
}

// ---- diffusion pipelines -------------------------------------------------------------------------
let expanding = 0; // the latest expansion asked for; an older answer is dropped

/**
 * A diffusion pipeline picked for a model, or the mode or precomputation changed with one in the setup:
 * the core adds the pipeline's other components (text encoders, VAE) as models where the job runs them
 * (core/src/pipeline_expand.c), and the page says what it added, with Undo.
 * @param {number[]} [indices]  the instances to expand (default: every pipeline in the setup)
 */
async function expandPipelines(indices) {
  const s = store.state;
  const list = (indices || s.instances.map((_, i) => i)).filter((i) => {
    const x = s.instances[i];
    return x && x.model.source === 'preset' && isPipelinePreset(x.model.preset);
  });
  if (!list.length) return;
  let plan;
  try {
    plan = buildPlan(s, planInfo());
  } catch {
    return; // the form has an error of its own to show first
  }
  const id = ++expanding;
  const snapshot = JSON.stringify(s);
  let added = 0;
  for (const i of list) {
    let r;
    try {
      r = JSON.parse((await core.expandPipeline(JSON.stringify(plan), i, false)).text);
    } catch {
      return;
    }
    if (!r || r.error || !r.plan) return;
    plan = r.plan;
    added += r.added | 0;
  }
  // nothing to add, or the form moved on while the core answered
  if (!added || id !== expanding || JSON.stringify(store.state) !== snapshot) return;
  const before = { state: structuredClone(store.state), active: store.active };
  const { state } = S.planToState(plan, presetType);
  const names = plan.instances.slice(before.state.instances.length).map((x) => `“${x.name}”`);
  replaceSetup(state, Math.min(store.active, state.instances.length - 1));
  offerUndo(`Added the pipeline’s ${names.join(', ')} as models (frozen, run in turn): the verdict names the step that sets the peak.`, before);
}

// ---- events -------------------------------------------------------------------------------------
function onChange() {
  const prevPreset = inst().model.preset;
  const prevPrecompute = !!store.state.workload.diffusion?.precompute;
  const prevType = modelTypeOf();
  const prevProbe = store.state.hardware.probe;
  const prevCount = gpuCount();
  const prevState = JSON.stringify(store.state);
  readForm();
  // an event that changed nothing (a list picked again) keeps the last Undo on offer
  if (JSON.stringify(store.state) !== prevState) hideApplied();
  if (modelTypeOf() !== prevType) model.fillTargets(true);
  if (store.state.hardware.probe !== prevProbe) gpu.fillProbeDevices();
  if (gpuCount() !== prevCount) instances.fillPlacementDevices();
  instances.renderInstanceBar();
  instances.fillShares();
  syncVisibility();
  scheduleEstimate();
  scheduleLinkUpdate();
  if (inst().model.preset !== prevPreset) expandPipelines([store.active]);
  else if (!!store.state.workload.diffusion?.precompute !== prevPrecompute) expandPipelines();
}

Object.assign(page, { onChange, expandPipelines, writeForm, replaceSetup, offerUndo, scheduleEstimate, scheduleLinkUpdate, setStatus, showBanner, hideApplied, core });

/** Inputs whose own card listens to them (not a plain "the form changed"). */
const OWN_IDS = new Set(['preset-search', 'role', 'add-role', 'par-framework', 'probe-text']);
const OWN_NAMES = new Set(['instance', 'mode']);
const ownHandled = (t) => t.type === 'file' || !!t.closest?.('#start') || OWN_NAMES.has(t.name) || OWN_IDS.has(t.id);

function wire() {
  const form = $('setup');
  form.addEventListener('input', (e) => { if (!ownHandled(e.target)) onChange(); });
  form.addEventListener('change', (e) => { if (!ownHandled(e.target)) onChange(); });
  form.addEventListener('submit', (e) => e.preventDefault());
  model.wire();
  hub.wire({ onConfig: model.takeConfigText });
  instances.wire();
  workload.wire();
  parallel.wire();
  gpu.wire();
  edge.wire();
  drop.wire();
  planFiles.wire();

  $('suggestions').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-apply]');
    if (!b || !current || stale) return;
    const sugg = (current.estimate.suggestions || [])[Number(b.dataset.apply)];
    if (sugg) applySuggestionToForm(sugg);
  });
  $('undo').addEventListener('click', undo);
  $('new-setup').addEventListener('click', newSetup);

  $('copy-link').addEventListener('click', copyLink);
  $('copy-plan').addEventListener('click', copyPlan);
  $('banner-close').addEventListener('click', () => { $('banner').hidden = true; });
  $('pin').addEventListener('click', () => {
    if (!current) return;
    pinned = structuredClone(current);
    renderComparePanel();
    scheduleLinkUpdate();
    $('compare').scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  });
  $('unpin').addEventListener('click', () => setPinned(null));
  window.addEventListener('hashchange', () => {
    if (location.hash.length > 1) applyFragment(location.hash);
  });
}

// ---- start --------------------------------------------------------------------------------------
function buildControls() {
  model.build();
  instances.build();
  workload.build();
  parallel.build();
  for (const fs of ['model-fieldset', 'hardware-fieldset', 'workload-fieldset', 'parallel-fieldset']) {
    $(fs).append(fieldMsg(fs));
  }
}

async function start() {
  buildControls();
  wire();
  const examplesReady = planFiles.loadExampleIndex();
  let init;
  try {
    init = await core.init();
  } catch (e) {
    renderVerdictMessage($('verdict'), 'error', 'The estimator did not load',
      String(e.message || e), 'This page needs WebAssembly and module workers (a current Chrome, Edge, Firefox or Safari).');
    return;
  }
  try {
    const bundle = JSON.parse(init.presets);
    store.presets = {
      models: Array.isArray(bundle.models) ? withComponents(bundle.models) : [],
      gpus: Array.isArray(bundle.gpus) ? bundle.gpus : [],
    };
  } catch {
    store.presets = { models: [], gpus: [] };
  }
  $('version').textContent = `vramplan ${init.version}`;
  store.state = defaultSetup();

  // A link wins; else the last setup on this browser (said, with Undo); else the defaults.
  let restored = false;
  if (location.hash.length > 1) restored = await applyFragment(location.hash);
  if (!restored) {
    const saved = localStorage.getItem(STORAGE_KEY) || localStorage.getItem(OLD_STORAGE_KEY);
    let last = null;
    if (saved) {
      try {
        last = (await decodeShare(saved)).state;
      } catch { /* ignore a stale saved setup */ }
    }
    const defaults = store.state;
    if (last && JSON.stringify(last) !== JSON.stringify(defaults)) {
      replaceSetup(last);
      offerUndo('Restored your last setup (kept in this browser).', { state: defaults, active: 0 });
    } else {
      replaceSetup(defaults);
    }
  }
  await examplesReady;
}

// The page must never go blank: anything unexpected becomes a message.
window.addEventListener('unhandledrejection', (e) => {
  showBanner(`Something went wrong: ${e.reason?.message || e.reason}. Your setup is kept.`);
});
window.addEventListener('error', (e) => {
  showBanner(`Something went wrong: ${e.message}. Your setup is kept.`);
});

start();
