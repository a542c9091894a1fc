// app.js: the page's controller. Reads the form into a setup, asks the worker for an
// estimate on every change (lightly debounced), draws the answer, keeps the share link.
//
// The setup holds a list of model instances; the Model card edits one of them at a time (the
// "active" one, picked with the instance tabs). Examples and plan files are read into the
// same setup (setup.js planToState); the core's suggestions become form changes (setup.js
// applySuggestion).
//
// No memory arithmetic here: the plan goes to the WebAssembly core in worker.js and every
// number on the page comes back in the estimate JSON.

import * as O from './options.js';
import * as S from './setup.js';
import { buildPlan, InputError, hfConfigName, PROBE_SCHEMA } from './plan.js';
import { encodeShare, decodeShare, ShareError } from './share.js';
import { h, fmtBytes, renderVerdict, renderVerdictMessage, renderMiniVerdict, renderDevices, renderSuggestions, renderWarnings, renderCompare } from './view.js';
import { CoreClient } from './core-client.js';

const $ = (id) => document.getElementById(id);
const STORAGE_KEY = 'vramplan.setup.v2';
const OLD_STORAGE_KEY = 'vramplan.setup.v1';
const DEBOUNCE_MS = 40;
const MAX_FILE_BYTES = 8 * 1024 * 1024;

let state = structuredClone(O.DEFAULT_STATE);
let active = 0;              // the instance the Model card shows
let presets = { models: [], gpus: [] };
let pinned = null;           // {state, estimate}
let current = null;          // {state, estimate} of the last good estimate
let stale = false;           // the last estimate failed: what is drawn is older than the form
let undoState = null;        // the setup before the last "Apply"
let latestId = 0;
let estimateTimer = 0;
let linkTimer = 0;
const core = new CoreClient(new URL('./worker.js', import.meta.url));

// Timings the tests and benchmarks read (window.__vramplan).
const perf = { firstEstimateMs: null, estimates: 0, lastCoreMs: null };
window.__vramplan = {
  perf,
  core,
  get state() { return structuredClone(state); },
  get active() { return active; },
  plan: () => buildPlan(state, planInfo()),
};

// ---- presets ------------------------------------------------------------------------------
// The bundle is {"models":[...], "gpus":[...]} (models/README.md); read it tolerantly.
const presetId = (p) => String(p.id ?? p.name ?? '');
const presetName = (p) => String(p.name ?? p.id ?? '');
function presetModelType(p) {
  if (!p) return '';
  return String(p.family ?? p.config?.model_type ?? p.model_type ?? '');
}
function presetMemory(g) {
  return g.memory_bytes ?? null;
}
const findModel = (id) => presets.models.find((m) => presetId(m) === id);
const presetType = (id) => presetModelType(findModel(id));
const planInfo = () => ({ presetType });

function pickDefault(list, preferred) {
  for (const id of preferred) if (list.some((p) => presetId(p) === id)) return id;
  return list.length ? presetId(list[0]) : '';
}

const inst = () => state.instances[active];

/** The model family instance i runs (its own model's, or the one it shares). */
function modelTypeOf(i = active, s = state) {
  return S.modelTypeOfModel(s.instances[S.ownModelIndex(s, i)].model, presetType);
}

/** GPUs per node: the form's, or the probe file's. */
function gpuCount() {
  if (state.hardware.source === 'probe') {
    const info = describeProbe(state.hardware.probe);
    return info && info.gpus.length ? info.gpus.length : 1;
  }
  const n = Number(state.hardware.count);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

// ---- building the form ------------------------------------------------------------------
function fillSelect(sel, items, value) {
  sel.replaceChildren(...items.map((it) => h('option', { value: it.value }, it.label)));
  if (value !== undefined) sel.value = value;
}

function buildStaticControls() {
  fillSelect($('precision'), O.PRECISIONS.filter((p) => p.modes.includes('train')));
  fillSelect($('infer-precision'), O.PRECISIONS.filter((p) => p.modes.includes('infer')));
  fillSelect($('optimizer'), O.OPTIMIZERS);
  fillSelect($('attn'), O.ATTN);
  fillSelect($('kv-dtype'), O.KV_DTYPES);
  fillSelect($('quant-4bit'), O.QUANT_4BIT);
  fillSelect($('base-quant'), O.BASE_QUANT);
  fillSelect($('role'), O.ROLES);
  fillSelect($('add-role'), O.ROLES.filter((r) => r.value !== 'trained').concat(O.ROLES.filter((r) => r.value === 'trained')), 'reference');
  fillSelect($('activations'), O.ACTIVATIONS);
  fillSelect($('placement'), O.PLACEMENTS);
  fillSelect($('par-framework'), O.FRAMEWORKS);
  fillSelect($('par-zero'), O.ZERO_STAGES);
  fillSelect($('par-fsdp'), O.FSDP_STRATEGIES);
  const msg = (id) => h('p', { id: `${id}-msg`, class: 'field-msg', role: 'alert', hidden: true });
  const fields = O.CUSTOM_FIELDS.map((f) => h('div', { class: 'field' },
    h('label', { for: `custom-${f.key}` }, f.label),
    h('input', {
      type: 'number', id: `custom-${f.key}`, min: f.min, step: 1, inputmode: 'numeric', 'data-custom': f.key,
      placeholder: f.optional ? f.optional : null,
    }),
    msg(`custom-${f.key}`)));
  const mlp = h('select', { id: 'custom-mlp', 'data-custom': 'mlp' });
  fillSelect(mlp, O.CUSTOM_MLP);
  const norm = h('select', { id: 'custom-norm', 'data-custom': 'norm' });
  fillSelect(norm, O.CUSTOM_NORM);
  const check = (key, id, label) => h('div', { class: 'field check' },
    h('label', {}, h('input', { type: 'checkbox', id, 'data-custom': key }), ` ${label}`), msg(id));
  $('custom-fields').replaceChildren(
    h('div', { class: 'field wide' }, h('label', { for: 'custom-name' }, 'Model name (optional)'),
      h('input', { type: 'text', id: 'custom-name', maxlength: 60, spellcheck: 'false', 'data-custom': 'name' }), msg('custom-name')),
    ...fields,
    h('div', { class: 'field' }, h('label', { for: 'custom-mlp' }, 'MLP'), mlp, msg('custom-mlp')),
    h('div', { class: 'field' }, h('label', { for: 'custom-norm' }, 'Norm'), norm, msg('custom-norm')),
    check('tie_embeddings', 'custom-tie', 'Tied embeddings'),
    check('attn_bias', 'custom-attn-bias', 'Attention bias'),
    check('mlp_bias', 'custom-mlp-bias', 'MLP bias'));
  for (const fs of ['model-fieldset', 'hardware-fieldset', 'workload-fieldset', 'parallel-fieldset']) {
    $(fs).append(msg(fs));
  }
}

function fillPresetList() {
  const q = $('preset-search').value.trim().toLowerCase();
  const words = q.split(/\s+/).filter(Boolean);
  const list = presets.models.filter((m) => {
    const hay = `${presetId(m)} ${presetName(m)} ${presetModelType(m)}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const sel = $('preset');
  sel.replaceChildren(...list.map((m) => h('option', { value: presetId(m) },
    presetName(m) !== presetId(m) ? `${presetName(m)} (${presetId(m)})` : presetId(m))));
  if (list.some((m) => presetId(m) === inst().model.preset)) sel.value = inst().model.preset;
  $('preset-search-msg').hidden = list.length > 0;
  $('preset-search-msg').textContent = list.length ? '' : 'No preset matches. Try fewer words, or paste a config.json.';
}

function fillGpuList() {
  fillSelect($('gpu'), presets.gpus.map((g) => {
    const mem = presetMemory(g);
    const name = presetName(g);
    return { value: presetId(g), label: typeof mem === 'number' ? `${name} · ${Math.round(mem / 1024 ** 3)} GiB` : name };
  }), state.hardware.gpu);
}

/** LoRA target checkboxes: the family's modules (plus any the setup names besides). */
function fillTargets(reset = false) {
  const x = inst();
  const family = S.loraTargetsFor(modelTypeOf());
  if (reset || !x.lora.targets.length) x.lora.targets = family.slice();
  const names = family.concat(x.lora.targets.filter((t) => !family.includes(t)));
  const list = $('lora-targets-list');
  const have = [...list.querySelectorAll('input')].map((i) => i.value).join('\u0000');
  if (have !== names.join('\u0000')) {
    list.replaceChildren(...names.map((n) => h('label', {},
      h('input', { type: 'checkbox', value: n, 'data-target': n }), ' ', h('code', {}, n))));
  }
  for (const i of list.querySelectorAll('input')) i.checked = x.lora.targets.includes(i.value);
}

/** The instance tabs (one radio per model instance). */
let barKey = '';
function renderInstanceBar() {
  const names = S.instanceNames(state);
  const key = JSON.stringify([names, state.instances.map((x) => x.role)]);
  const bar = $('instance-bar');
  if (key !== barKey) {
    barKey = key;
    const hadFocus = bar.contains(document.activeElement);
    const roleLabel = (r) => (r === 'functional_copy' ? 'functional copy' : r);
    bar.replaceChildren(...state.instances.map((x, i) => h('label', { 'data-instance': i },
      h('input', { type: 'radio', name: 'instance', value: i }),
      ' ', h('span', { class: 'iname' }, names[i]), h('span', { class: 'irole' }, ` · ${roleLabel(x.role)}`))));
    if (hadFocus) bar.querySelector(`input[value="${active}"]`)?.focus();
  }
  for (const r of bar.querySelectorAll('input')) r.checked = Number(r.value) === active;
  const n = state.instances.length;
  $('model-fieldset').querySelector('legend').textContent = n > 1 ? `Models (${n})` : 'Model';
  $('add-instance').disabled = n >= O.MAX_INSTANCES;
  $('dup-instance').disabled = n >= O.MAX_INSTANCES;
  $('remove-instance').textContent = `Remove “${names[active]}”`;
  $('dup-instance').textContent = n > 1 ? `Duplicate “${names[active]}”` : 'Duplicate';
  $('instance-name').placeholder = names[active];
}

/** "Runs through the weights of": its own model, or another instance that has its own. */
let sharesKey = '';
function fillShares() {
  const names = S.instanceNames(state);
  const items = [{ value: '-1', label: 'its own model' }];
  state.instances.forEach((x, j) => {
    if (j !== active && S.sharesTarget(state, j) < 0) items.push({ value: String(j), label: `“${names[j]}” (same weights, e.g. adapters off)` });
  });
  const key = JSON.stringify(items);
  if (key !== sharesKey) {
    sharesKey = key;
    fillSelect($('shares'), items);
  }
  const want = String(S.sharesTarget(state, active));
  $('shares').value = items.some((it) => it.value === want) ? want : '-1';
}

/** GPU choices for a placement: the GPUs of a node (and the set one, even if out of range). */
function fillPlacementDevices() {
  const n = Math.min(gpuCount(), 256);
  const cur = Number(inst().device);
  const top = Math.max(n - 1, Number.isInteger(cur) && cur >= 0 && cur < 1024 ? cur : 0);
  const items = [];
  for (let i = 0; i <= top; i++) items.push({ value: String(i), label: i < n ? `GPU ${i}` : `GPU ${i} (not in this node)` });
  fillSelect($('placement-device'), items, String(Number.isInteger(cur) ? cur : 0));
}

/** What a probe file says about where it came from (docs/schema/gpu-probe.md), for display. */
function describeProbe(text) {
  let probe;
  try {
    probe = JSON.parse(text);
  } catch {
    return null;
  }
  if (!probe || typeof probe !== 'object' || Array.isArray(probe)) return null;
  const str = (v) => (typeof v === 'string' ? v : '');
  const host = probe.host && typeof probe.host === 'object' ? probe.host : {};
  return {
    probe,
    gpus: Array.isArray(probe.devices) ? probe.devices : [],
    host: str(host.hostname),
    driver: str(host.driver_version),
    time: str(probe.time),
    warnings: Array.isArray(probe.warnings) ? probe.warnings.filter((w) => typeof w === 'string') : [],
  };
}

/** "node gpu-07" or, for a redacted file, "the node probed 2026-11-22T10:49:55Z (driver 580.159.04)" */
function probeNode(info) {
  if (info.host) return `node ${info.host}`;
  const bits = [info.time && `probed ${info.time}`, info.driver && `driver ${info.driver}`].filter(Boolean);
  return bits.length ? `the node ${bits.join(', ')}` : 'an unnamed node';
}

function probeGpuLabel(g, i) {
  const idx = Number.isInteger(g?.index) ? g.index : i;
  const parts = [`GPU ${idx}`, typeof g?.name === 'string' ? g.name : 'GPU'];
  if (typeof g?.pci_bus_id === 'string') parts.push(g.pci_bus_id);
  const free = g?.memory?.free_bytes;
  if (typeof free === 'number' && Number.isFinite(free)) parts.push(`${fmtBytes(free)} free`);
  return parts.join(' · ');
}

function fillProbeDevices() {
  const info = describeProbe(state.hardware.probe);
  const sel = $('probe-device');
  const gpus = info ? info.gpus : [];
  // hardware.device is the position in the probe's devices[] (CUDA order)
  const items = gpus.length
    ? gpus.map((g, i) => ({ value: String(i), label: probeGpuLabel(g, i) }))
    : [{ value: '0', label: 'GPU 0' }];
  fillSelect(sel, items, String(state.hardware.device));
  if (sel.value !== String(state.hardware.device)) {
    sel.value = items[0].value;
    state.hardware.device = Number(items[0].value);
  }
  const parts = [];
  if (info && info.probe.schema === PROBE_SCHEMA) {
    parts.push(`From ${probeNode(info)}`);
    if (gpus.length) parts.push(`${gpus.length} GPU${gpus.length > 1 ? 's' : ''} per node`);
    for (const w of info.warnings.slice(0, 3)) parts.push(`probe warning: ${w}`);
  }
  $('probe-info').textContent = parts.join(' · ');
}

// ---- form ↔ setup ---------------------------------------------------------------------------
const radio = (name) => document.querySelector(`input[name="${name}"]:checked`)?.value;
const setRadio = (name, v) => {
  const el = document.querySelector(`input[name="${name}"][value="${CSS.escape(String(v))}"]`);
  if (el) el.checked = true;
};
/** A number input's value: a number when it is one, else the text ('' while empty). */
const numVal = (el) => (el.value !== '' && String(Number(el.value)) === el.value ? Number(el.value) : el.value);
const getPath = (o, path) => path.split('.').reduce((a, k) => (a == null ? a : a[k]), o);
const setPath = (o, path, v) => {
  const keys = path.split('.');
  const last = keys.pop();
  keys.reduce((a, k) => a[k], o)[last] = v;
};

function readForm() {
  const s = state;
  const x = inst();
  x.model.source = radio('model-source') || x.model.source;
  x.model.preset = $('preset').value || x.model.preset;
  x.model.hf = $('hf-config').value;
  for (const el of document.querySelectorAll('[data-custom]')) {
    const k = el.dataset.custom;
    x.model.custom[k] = el.type === 'checkbox' ? el.checked : el.type === 'number' ? numVal(el) : el.value;
  }
  x.name = $('instance-name').value;
  if ($('shares').value !== '') x.shares = Number($('shares').value);
  x.precision = $('precision').value;
  x.infer_precision = $('infer-precision').value;
  x.optimizer = $('optimizer').value;
  x.finetune = radio('finetune') || x.finetune;
  x.attn = $('attn').value;
  x.grad_ckpt = $('grad-ckpt').checked;
  x.quant = $('base-quant').value;
  x.adapter_dim = numVal($('adapter-dim'));
  x.lora.r = numVal($('lora-r'));
  x.lora.alpha = numVal($('lora-alpha'));
  x.lora.dropout = numVal($('lora-dropout'));
  x.lora.quant = $('quant-4bit').value;
  x.lora.double_quant = $('double-quant').checked;
  const t = [...document.querySelectorAll('#lora-targets-list input')];
  if (t.length) x.lora.targets = t.filter((i) => i.checked).map((i) => i.value);
  x.activations = $('activations').value;
  x.passes = numVal($('passes'));
  x.logprobs_fp32 = $('logprobs').checked;
  x.placement = $('placement').value;
  if ($('placement-device').value !== '') x.device = Number($('placement-device').value);
  x.pinned = $('pinned').checked;

  const w = s.workload;
  w.mode = radio('mode');
  for (const [k, id] of [['batch', 'batch'], ['seq', 'seq'], ['grad_accum', 'grad-accum'], ['prompt', 'prompt'],
    ['new_tokens', 'new-tokens'], ['image_size', 'image-size']]) {
    w[k] = numVal($(id));
  }
  w.kv_dtype = $('kv-dtype').value;
  const hw = s.hardware;
  hw.source = radio('hw-source');
  hw.gpu = $('gpu').value || hw.gpu;
  hw.count = numVal($('gpu-count'));
  hw.probe = $('probe-text').value;
  hw.device = Number($('probe-device').value || 0);
  for (const el of document.querySelectorAll('#setup [data-bind]')) {
    let v;
    if (el.type === 'checkbox') v = el.checked;
    else if (el.dataset.num !== undefined) v = Number(el.value);
    else if (el.type === 'number') v = numVal(el);
    else v = el.value;
    setPath(s, el.dataset.bind, v);
  }
}

function writeForm() {
  const s = state;
  if (active >= s.instances.length) active = s.instances.length - 1;
  const x = inst();
  setRadio('model-source', x.model.source);
  $('hf-config').value = x.model.hf;
  for (const el of document.querySelectorAll('[data-custom]')) {
    const v = x.model.custom[el.dataset.custom];
    if (el.type === 'checkbox') el.checked = !!v;
    else el.value = String(v ?? '');
  }
  $('instance-name').value = x.name;
  $('role').value = x.role;
  $('precision').value = x.precision;
  $('infer-precision').value = x.infer_precision;
  $('optimizer').value = x.optimizer;
  setRadio('finetune', x.finetune);
  $('attn').value = x.attn;
  $('grad-ckpt').checked = !!x.grad_ckpt;
  $('base-quant').value = x.quant;
  $('adapter-dim').value = String(x.adapter_dim);
  $('lora-r').value = String(x.lora.r);
  $('lora-alpha').value = String(x.lora.alpha);
  $('lora-dropout').value = String(x.lora.dropout);
  $('quant-4bit').value = x.lora.quant;
  $('double-quant').checked = !!x.lora.double_quant;
  $('activations').value = x.activations;
  $('passes').value = String(x.passes);
  $('logprobs').checked = !!x.logprobs_fp32;
  $('placement').value = x.placement;
  $('pinned').checked = !!x.pinned;

  const w = s.workload;
  setRadio('mode', w.mode);
  $('batch').value = String(w.batch);
  $('seq').value = String(w.seq);
  $('grad-accum').value = String(w.grad_accum);
  $('prompt').value = String(w.prompt);
  $('new-tokens').value = String(w.new_tokens);
  $('kv-dtype').value = w.kv_dtype;
  $('image-size').value = String(w.image_size);
  const hw = s.hardware;
  setRadio('hw-source', hw.source);
  $('gpu-count').value = String(hw.count);
  $('probe-text').value = hw.probe;
  for (const el of document.querySelectorAll('#setup [data-bind]')) {
    const v = getPath(s, el.dataset.bind);
    if (el.type === 'checkbox') el.checked = !!v;
    else el.value = String(v ?? '');
  }
  fillPresetList();
  fillGpuList();
  fillProbeDevices();
  fillTargets();
  fillPlacementDevices();
  renderInstanceBar();
  fillShares();
  syncVisibility();
}

/**
 * Shows the fields that apply: data-show="key=value,value" (several conditions joined by ";"
 * must all hold).
 */
function syncVisibility() {
  const x = inst();
  const mode = state.workload.mode;
  const own = S.sharesTarget(state, active) < 0;
  const baseQuant = mode === 'infer' || ['lora', 'adapter', 'frozen'].includes(x.finetune);
  const vals = {
    'model-source': x.model.source,
    mode,
    finetune: x.finetune,
    'hw-source': state.hardware.source,
    multi: state.instances.length > 1 ? 'yes' : 'no',
    own: own ? 'yes' : 'no',
    learns: S.trains(x.role) && x.finetune !== 'frozen' ? 'yes' : 'no',
    ckpt: x.activations === 'train' || x.activations === 'keep_graph' || x.grad_ckpt ? 'yes' : 'no',
    basequant: baseQuant ? 'yes' : 'no',
    dq: (mode === 'train' && x.finetune === 'qlora') || (baseQuant && (x.quant === 'nf4' || x.quant === 'fp4')) ? 'yes' : 'no',
    activations: x.activations,
    placement: x.placement,
    framework: state.parallel.framework,
    vit: state.instances.some((_, i) => modelTypeOf(i) === 'vit') ? 'yes' : 'no',
  };
  for (const el of document.querySelectorAll('[data-show]')) {
    el.hidden = !el.dataset.show.split(';').every((rule) => {
      const [k, v] = rule.split('=');
      return v.split(',').includes(vals[k]);
    });
  }
  let info = '';
  const m = x.model;
  if (m.source === 'preset') {
    const p = findModel(m.preset);
    if (p) info = [presetName(p), presetModelType(p)].filter(Boolean).join(' · ');
  } else if (m.source === 'hf') {
    try {
      const name = hfConfigName(JSON.parse(m.hf));
      if (name) info = `Model: ${name}`;
    } catch { /* shown as a field message by the estimate */ }
  }
  $(m.source === 'hf' ? 'hf-config-info' : 'preset-info').textContent = info;
  $('gc-every-note').textContent = x.grad_ckpt && Number(x.gc_every) > 1 ? ` (every ${x.gc_every} blocks)` : '';
  const act = O.ACTIVATIONS.find((a) => a.value === S.effectiveActivations(x, mode));
  const pl = x.placement === 'sharded' ? 'sharded' : x.placement === 'gpu' ? `GPU ${x.device}`
    : x.placement === 'cpu' ? 'CPU RAM' : `CPU → GPU ${x.device}`;
  $('instance-more-summary').textContent = `· ${act ? act.value.replace('_', ' ') : ''} · ${pl}`;
}

// ---- estimate ---------------------------------------------------------------------------------
function clearFieldMessages() {
  for (const el of document.querySelectorAll('.field-msg:not(#preset-search-msg)')) {
    el.hidden = true;
    el.textContent = '';
  }
  for (const el of document.querySelectorAll('#setup [aria-invalid]')) el.removeAttribute('aria-invalid');
  for (const el of document.querySelectorAll('#instance-bar .invalid')) el.classList.remove('invalid');
}

/** The field a core error path points at: {id, instance} (see options.js ERROR_FIELDS). */
function fieldForPath(path) {
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

function showFieldMessage(id, message) {
  const msg = id && $(`${id}-msg`);
  if (!msg) return false;
  if (msg.parentElement.closest('[hidden]')) {
    // the field is not shown for this setup: say it on its card instead
    const card = msg.closest('fieldset.card');
    return card && card.id !== id ? showFieldMessage(card.id, message) : false;
  }
  msg.textContent = message;
  msg.hidden = false;
  const details = msg.closest('details');
  if (details) details.open = true;
  const field = $(id);
  if (field && field.tagName !== 'FIELDSET') field.setAttribute('aria-invalid', 'true');
  return true;
}

function showError(field, message, path, code, instance = null) {
  clearFieldMessages();
  let shown;
  if (instance !== null && instance !== active && instance < state.instances.length) {
    // another instance's field: name it above the tabs and mark its tab
    const names = S.instanceNames(state);
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
  stale = true;
  for (const id of ['suggestions', 'devices', 'warnings']) $(id).classList.add('stale');
  for (const b of document.querySelectorAll('#suggestions button.apply')) b.disabled = true;
  $('stale-note').hidden = !current;
  const mini = $('mini-verdict');
  mini.className = 'mini-verdict error';
  mini.textContent = '⚠ Cannot estimate this setup · why ↓';
  mini.hidden = false;
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
  const snapshot = structuredClone(state);
  let result;
  try {
    result = await estimateOf(snapshot);
  } catch (e) {
    if (id !== latestId) return;
    if (e instanceof InputError) showError(e.field, e.message, null, null, e.instance);
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
  if (perf.firstEstimateMs === null) {
    perf.firstEstimateMs = performance.now();
    document.documentElement.dataset.ready = 'true';
  }
}

function sourceLine() {
  if (state.hardware.source !== 'probe') return '';
  const info = describeProbe(state.hardware.probe);
  if (!info || info.probe.schema !== PROBE_SCHEMA) return '';
  const gpu = info.gpus[state.hardware.device];
  return `Planned against the probe of ${probeNode(info)}: ${probeGpuLabel(gpu, state.hardware.device)}.`;
}

function render() {
  const est = current.estimate;
  stale = false;
  renderVerdict($('verdict'), est, { source: sourceLine() });
  renderMiniVerdict($('mini-verdict'), est);
  renderSuggestions($('suggestions'), est, { canApply: S.canApply });
  renderDevices($('devices'), est);
  renderWarnings($('warnings'), est);
  for (const id of ['suggestions', 'devices', 'warnings']) $(id).classList.remove('stale');
  $('stale-note').hidden = true;
  renderComparePanel();
}

// ---- suggestions → form -------------------------------------------------------------------------
function hideApplied() {
  undoState = null;
  $('applied').hidden = true;
}

function applySuggestionToForm(sugg) {
  const { state: next, applied, skipped } = S.applySuggestion(state, sugg, { presetType, gpuCount: gpuCount() });
  if (!applied.length) {
    setStatus('The form already has that change.');
    return;
  }
  undoState = { state: structuredClone(state), active };
  state = next;
  if (active >= state.instances.length) active = state.instances.length - 1;
  writeForm();
  scheduleEstimate(0);
  scheduleLinkUpdate();
  $('applied-text').textContent = `Applied: ${sugg.change}.${skipped.length ? ` (Nothing to change for: ${skipped.join(', ')}.)` : ''}`;
  $('applied').hidden = false;
}

function undoApply() {
  if (!undoState) return;
  state = undoState.state;
  active = undoState.active;
  hideApplied();
  writeForm();
  scheduleEstimate(0);
  scheduleLinkUpdate();
  setStatus('Undone.');
}

// ---- compare ------------------------------------------------------------------------------------
const DIFF_LABELS = {
  name: 'Plan name', note: 'Plan note',
  'workload.mode': 'Mode', 'workload.batch': 'Micro-batch', 'workload.seq': 'Sequence length',
  'workload.grad_accum': 'Gradient accumulation', 'workload.prompt': 'Prompt tokens',
  'workload.new_tokens': 'Generated tokens', 'workload.kv_dtype': 'KV cache dtype',
  'workload.image_size': 'Image size', 'hardware.source': 'Hardware source', 'hardware.gpu': 'GPU',
  'hardware.count': 'GPUs per node', 'hardware.nodes': 'Nodes', 'hardware.cpu_ram_gib': 'CPU RAM (GiB)',
  'hardware.probe': 'Probe file', 'hardware.device': 'Probe device',
  'parallel.framework': 'Framework', 'parallel.dp': 'Data parallel', 'parallel.tp': 'Tensor parallel',
  'parallel.pp': 'Pipeline parallel', 'parallel.ep': 'Expert parallel', 'parallel.vpp': 'Virtual stages',
  'parallel.microbatches': 'Pipeline micro-batches', 'parallel.sp': 'Sequence parallel', 'parallel.zero': 'ZeRO stage',
  'parallel.fsdp': 'FSDP strategy', 'parallel.offload_optimizer': 'Optimizer offload',
  'parallel.offload_params': 'Parameter offload', 'parallel.activation_offload': 'Activation offload',
  'parallel.distributed_optimizer': 'Distributed optimizer', 'parallel.selective_recompute': 'Selective recompute',
  'parallel.gradient_as_bucket_view': 'gradient_as_bucket_view', 'parallel.reduce_bucket_size': 'Reduce bucket',
  'parallel.allgather_bucket_size': 'All-gather bucket',
};
const INSTANCE_LABELS = {
  name: 'Name', role: 'Role', shares: 'Runs through the weights of', 'model.source': 'Model source',
  'model.preset': 'Model', 'model.hf': 'config.json', precision: 'Precision', infer_precision: 'Weights dtype',
  quant: 'Base weights', optimizer: 'Optimizer', finetune: 'Fine-tuning', 'lora.r': 'LoRA rank',
  'lora.alpha': 'LoRA alpha', 'lora.dropout': 'LoRA dropout', 'lora.targets': 'LoRA targets',
  'lora.quant': '4-bit type', 'lora.double_quant': 'Double quantization', adapter_dim: 'Adapter bottleneck',
  grad_ckpt: 'Gradient checkpointing', gc_every: 'Checkpoint every', attn: 'Attention',
  activations: 'Activations', passes: 'Passes', logprobs_fp32: 'fp32 log-probabilities',
  placement: 'Placement', device: 'Placement GPU', pinned: 'Pinned memory',
};
const LONG_FIELDS = ['model.hf', 'hardware.probe', 'note'];

function flatten(obj, prefix = '', out = {}) {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v, key, out);
    else out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function settingDiffs(a, b) {
  const out = [];
  const show = (v) => (typeof v === 'boolean' ? (v ? 'on' : 'off') : String(v));
  const push = (label, key, x, y) => {
    if (String(x) === String(y)) return;
    const long = LONG_FIELDS.some((f) => key === f || key.endsWith(`.${f}`));
    out.push({ label, from: long ? 'pasted text' : show(x), to: long ? 'changed' : show(y) });
  };
  const { instances: ia, ...ra } = a;
  const { instances: ib, ...rb } = b;
  const fa = flatten(ra);
  const fb = flatten(rb);
  for (const k of Object.keys(fb)) push(DIFF_LABELS[k] || k, k, fa[k], fb[k]);
  const na = S.instanceNames(a);
  const nb = S.instanceNames(b);
  const many = ia.length > 1 || ib.length > 1;
  for (let i = 0; i < Math.min(ia.length, ib.length); i++) {
    const xa = flatten(ia[i]);
    const xb = flatten(ib[i]);
    for (const k of Object.keys(xb)) {
      const label = INSTANCE_LABELS[k] || k.replace(/^model\.custom\./, 'Custom ');
      push(many ? `${nb[i]}: ${label}` : label, k, xa[k], xb[k]);
    }
  }
  for (let i = ib.length; i < ia.length; i++) out.push({ label: 'Model removed', from: na[i], to: '–' });
  for (let i = ia.length; i < ib.length; i++) out.push({ label: 'Model added', from: '–', to: `${nb[i]} (${ib[i].role})` });
  return out;
}

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
  const frag = await encodeShare(state, pinned ? pinned.state : null);
  return { frag, url: `${location.origin}${location.pathname}${location.search}#${frag}` };
}

function scheduleLinkUpdate() {
  clearTimeout(linkTimer);
  linkTimer = setTimeout(async () => {
    try {
      const { frag } = await currentLink();
      history.replaceState(null, '', `#${frag}`);
      localStorage.setItem(STORAGE_KEY, frag);
    } catch { /* storage full or unavailable: the link still works from the button */ }
  }, 300);
}

async function copyLink() {
  const { frag, url } = await currentLink();
  history.replaceState(null, '', `#${frag}`);
  try {
    await navigator.clipboard.writeText(url);
    setStatus('Link copied.');
  } catch {
    setStatus('Copy it from the address bar.');
  }
}

async function copyPlan() {
  try {
    const plan = buildPlan(state, planInfo());
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
    state = s;
    active = 0;
    hideApplied();
    writeForm();
    $('banner').hidden = true;
    await setPinned(p);
    scheduleEstimate(0);
    return true;
  } catch (e) {
    const msg = e instanceof ShareError ? e.message : 'The link could not be read.';
    showBanner(`${msg} Your current setup is unchanged.`);
    return false;
  }
}

// ---- examples and plan files -----------------------------------------------------------------
async function loadExampleIndex() {
  const list = $('examples-list');
  let items = [];
  try {
    const r = await fetch('examples/index.json');
    if (!r.ok) throw new Error(String(r.status));
    const data = await r.json();
    if (Array.isArray(data)) {
      items = data.filter((x) => x && typeof x.file === 'string' && /^[\w.-]+\.json$/.test(x.file));
    }
  } catch { /* a build without examples: the menu says so */ }
  if (!items.length) {
    list.replaceChildren(h('li', { class: 'muted' }, 'No examples in this build.'));
    return;
  }
  list.replaceChildren(...items.map((x) => h('li', {},
    h('button', { type: 'button', class: 'menu-item', 'data-example': x.file },
      h('span', { class: 'menu-title' }, typeof x.name === 'string' && x.name ? x.name : x.file),
      h('span', { class: 'menu-file muted' }, x.file)))));
}

async function loadExample(file) {
  let text;
  try {
    const r = await fetch(`examples/${encodeURIComponent(file)}`);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    text = await r.text();
  } catch (e) {
    $('plan-info').replaceChildren(h('span', { class: 'bad' }, `The example ${file} could not be loaded (${e.message}).`));
    return;
  }
  $('examples-menu').open = false;
  const res = await openPlanText(text, `example ${file}`);
  if (!res.ok) $('plan-info').replaceChildren(h('span', { class: 'bad' }, res.message));
}

function showPlanFileError(message) {
  const msg = $('plan-text-msg');
  msg.textContent = message;
  msg.hidden = false;
  $('plan-text').setAttribute('aria-invalid', 'true');
  $('open-plan').open = true;
}

async function openPlanFromPanel(text, label) {
  $('plan-text-msg').hidden = true;
  $('plan-text').removeAttribute('aria-invalid');
  const res = await openPlanText(text, label);
  if (!res.ok) showPlanFileError(res.message);
  else $('open-plan').open = false;
}

/**
 * Reads a plan into the form (examples and "Open plan JSON"). A file the form cannot hold is
 * refused with a sentence; otherwise the form gets it, and a plan error (a layout that does not
 * divide the model, say) is then shown next to its field like any other.
 */
async function openPlanText(text, label) {
  let plan;
  if (!text || !text.trim()) return { ok: false, message: 'Paste a plan, or upload one.' };
  try {
    plan = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `The plan is not valid JSON: ${e.message}` };
  }
  let res;
  try {
    res = S.planToState(plan, presetType);
  } catch (e) {
    if (e instanceof S.PlanFileError) return { ok: false, message: e.message };
    throw e;
  }
  if (res.invalid.length) {
    // the core says it best when it refuses the file; else name what the form cannot hold
    let coreMsg = '';
    try {
      const est = JSON.parse((await core.estimate(text)).text);
      if (est.error) coreMsg = est.error.message;
    } catch { /* fall through */ }
    return {
      ok: false,
      message: coreMsg ? `The plan has an error: ${coreMsg}` : `The form cannot hold ${res.invalid.slice(0, 3).join(', ')} of this plan.`,
    };
  }
  state = res.state;
  active = 0;
  hideApplied();
  writeForm();
  scheduleEstimate(0);
  scheduleLinkUpdate();
  const lines = [h('span', {}, `Loaded ${label}${state.name ? `: ${state.name}` : '.'}`)];
  if (state.note) lines.push(h('details', { class: 'note' }, h('summary', {}, 'Note'), h('span', {}, state.note)));
  if (res.dropped.length) lines.push(h('span', { class: 'bad' }, `Not in the form, left out: ${res.dropped.join(', ')}.`));
  $('plan-info').replaceChildren(...lines);
  // the form must estimate what the file estimates; say so if it cannot hold some setting
  try {
    const [a, b] = await Promise.all([core.estimate(text), core.estimate(JSON.stringify(buildPlan(state, planInfo())))]);
    if (!JSON.parse(a.text).error && a.text !== b.text) {
      $('plan-info').append(h('span', { class: 'bad' }, 'The form’s estimate differs from the file’s: it cannot hold every setting of this plan.'));
    }
  } catch { /* the estimate itself will show what is wrong */ }
  return { ok: true };
}

async function readFileText(file, what, onError) {
  if (!file) return null;
  if (file.size > MAX_FILE_BYTES) {
    onError(`${what} is ${Math.round(file.size / 1024)} KiB; that is too large to be one.`);
    return null;
  }
  return file.text();
}

async function readFileInto(file, textarea, what) {
  const text = await readFileText(file, what, (m) => showFieldMessage(textarea.id, m));
  if (text === null) return;
  textarea.value = text;
  onChange();
}

// ---- instances ---------------------------------------------------------------------------------
function selectInstance(i) {
  if (i === active || i < 0 || i >= state.instances.length) return;
  active = i;
  $('preset-search').value = '';
  writeForm();
  scheduleEstimate(0); // shows this instance's field errors next to its fields
}

function focusActiveTab() {
  document.querySelector(`#instance-bar input[value="${active}"]`)?.focus();
}

function addInstance() {
  const i = S.addInstance(state, $('add-role').value);
  if (i < 0) {
    setStatus(`A plan holds at most ${O.MAX_INSTANCES} models.`);
    return;
  }
  active = i;
  afterInstancesChanged(`Added “${S.instanceNames(state)[i]}”.`);
}

function duplicateInstance() {
  const i = S.duplicateInstance(state, active);
  if (i < 0) {
    setStatus(`A plan holds at most ${O.MAX_INSTANCES} models.`);
    return;
  }
  active = i;
  afterInstancesChanged(`Added “${S.instanceNames(state)[i]}”, a copy.`);
}

function removeInstance() {
  const name = S.instanceNames(state)[active];
  if (!S.removeInstance(state, active)) return;
  active = Math.max(0, active - 1);
  afterInstancesChanged(`Removed “${name}”.`);
}

function afterInstancesChanged(message) {
  hideApplied();
  $('preset-search').value = '';
  writeForm();
  scheduleEstimate(0);
  scheduleLinkUpdate();
  setStatus(message);
  focusActiveTab();
}

function onRoleChange() {
  S.setRole(inst(), $('role').value);
  hideApplied();
  writeForm();
  scheduleEstimate();
  scheduleLinkUpdate();
}

// ---- events -------------------------------------------------------------------------------------
function onChange() {
  const prevType = modelTypeOf();
  const prevProbe = state.hardware.probe;
  const prevCount = gpuCount();
  readForm();
  hideApplied();
  if (modelTypeOf() !== prevType) fillTargets(true);
  if (state.hardware.probe !== prevProbe) fillProbeDevices();
  if (gpuCount() !== prevCount) fillPlacementDevices();
  renderInstanceBar();
  fillShares();
  syncVisibility();
  scheduleEstimate();
  scheduleLinkUpdate();
}

const inStart = (el) => !!el.closest?.('#start');

function wire() {
  const form = $('setup');
  form.addEventListener('input', (e) => {
    if (inStart(e.target) || e.target.name === 'instance' || e.target.id === 'role' || e.target.id === 'add-role') return;
    if (e.target.id === 'preset-search') {
      fillPresetList();
      const sel = $('preset');
      if (sel.options.length && !sel.value) {
        sel.value = sel.options[0].value;
        onChange();
      }
      return;
    }
    onChange();
  });
  form.addEventListener('change', (e) => {
    if (e.target.type === 'file' || inStart(e.target) || e.target.id === 'add-role') return;
    if (e.target.name === 'instance') selectInstance(Number(e.target.value));
    else if (e.target.id === 'role') onRoleChange();
    else if (e.target.id !== 'preset-search') onChange();
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  $('preset-search').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter') {
      e.preventDefault();
      $('preset').focus();
    }
  });
  $('add-instance').addEventListener('click', addInstance);
  $('dup-instance').addEventListener('click', duplicateInstance);
  $('remove-instance').addEventListener('click', removeInstance);
  $('hf-file').addEventListener('change', (e) => readFileInto(e.target.files[0], $('hf-config'), 'The config.json'));
  $('probe-file').addEventListener('change', (e) => readFileInto(e.target.files[0], $('probe-text'), 'The probe file'));

  // examples and plan files
  $('examples-list').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-example]');
    if (b) loadExample(b.dataset.example);
  });
  $('plan-open').addEventListener('click', () => openPlanFromPanel($('plan-text').value, 'the pasted plan'));
  const openFile = async (file) => {
    const text = await readFileText(file, 'The plan file', showPlanFileError);
    if (text === null) return;
    $('plan-text').value = text;
    await openPlanFromPanel(text, `${String(file.name || 'the plan file').slice(0, 80)}`);
  };
  $('plan-file').addEventListener('change', (e) => {
    openFile(e.target.files[0]);
    e.target.value = '';
  });

  const dropZone = (zone, onFile) => {
    for (const ev of ['dragenter', 'dragover']) {
      zone.addEventListener(ev, (e) => {
        e.preventDefault();
        zone.classList.add('over');
      });
    }
    for (const ev of ['dragleave', 'drop']) zone.addEventListener(ev, () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      e.stopPropagation();
      if (e.dataTransfer?.files?.length) onFile(e.dataTransfer.files[0]);
    });
  };
  dropZone($('probe-drop'), (f) => readFileInto(f, $('probe-text'), 'The probe file'));
  dropZone($('hf-drop'), (f) => readFileInto(f, $('hf-config'), 'The config.json'));
  dropZone($('plan-drop'), openFile);
  // a file dropped anywhere else must not navigate away from the page
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

  $('suggestions').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-apply]');
    if (!b || !current || stale) return;
    const sugg = (current.estimate.suggestions || [])[Number(b.dataset.apply)];
    if (sugg) applySuggestionToForm(sugg);
  });
  $('undo').addEventListener('click', undoApply);

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
async function start() {
  buildStaticControls();
  wire();
  const examplesReady = loadExampleIndex();
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
    presets = {
      models: Array.isArray(bundle.models) ? bundle.models : [],
      gpus: Array.isArray(bundle.gpus) ? bundle.gpus : [],
    };
  } catch {
    presets = { models: [], gpus: [] };
  }
  $('version').textContent = `vramplan ${init.version}`;
  state.instances[0].model.preset = pickDefault(presets.models, O.PREFERRED_DEFAULTS.preset);
  state.hardware.gpu = pickDefault(presets.gpus, O.PREFERRED_DEFAULTS.gpu);
  if (!presets.models.length) state.instances[0].model.source = 'custom';

  // A link wins; else the last setup on this browser; else the defaults.
  let restored = false;
  if (location.hash.length > 1) restored = await applyFragment(location.hash);
  if (!restored) {
    const saved = localStorage.getItem(STORAGE_KEY) || localStorage.getItem(OLD_STORAGE_KEY);
    if (saved) {
      try {
        const { state: s } = await decodeShare(saved);
        state = s;
      } catch { /* ignore a stale saved setup */ }
    }
    writeForm();
    scheduleEstimate(0);
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
