// app.js: the page's controller. Reads the form into a setup, asks the worker for an
// estimate on every change (lightly debounced), draws the answer, keeps the share link.
//
// No memory arithmetic here: the plan goes to the WebAssembly core in worker.js and every
// number on the page comes back in the estimate JSON.

import * as O from './options.js';
import { buildPlan, InputError, hfConfigName, PROBE_SCHEMA } from './plan.js';
import { encodeShare, decodeShare, ShareError } from './share.js';
import { h, fmtBytes, renderVerdict, renderVerdictMessage, renderMiniVerdict, renderDevices, renderSuggestions, renderWarnings, renderCompare } from './view.js';
import { CoreClient } from './core-client.js';

const $ = (id) => document.getElementById(id);
const STORAGE_KEY = 'vramplan.setup.v1';
const DEBOUNCE_MS = 40;
const MAX_FILE_BYTES = 8 * 1024 * 1024;

let state = structuredClone(O.DEFAULT_STATE);
let presets = { models: [], gpus: [] };
let pinned = null;           // {state, estimate}
let current = null;          // {state, estimate} of the last good estimate
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
  plan: () => buildPlan(state, { modelType: currentModelType() }),
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

function pickDefault(list, preferred) {
  for (const id of preferred) if (list.some((p) => presetId(p) === id)) return id;
  return list.length ? presetId(list[0]) : '';
}

/** The model family of the current setup (for LoRA target names and image size). */
function currentModelType() {
  const m = state.model;
  if (m.source === 'preset') return presetModelType(findModel(m.preset));
  if (m.source === 'hf') {
    try {
      const cfg = JSON.parse(m.hf);
      return cfg && typeof cfg.model_type === 'string' ? cfg.model_type : '';
    } catch {
      return '';
    }
  }
  return '';
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
  const custom = $('custom-fields');
  const fields = O.CUSTOM_FIELDS.map((f) => h('div', { class: 'field' },
    h('label', { for: `custom-${f.key}` }, f.label),
    h('input', { type: 'number', id: `custom-${f.key}`, min: f.min, step: 1, inputmode: 'numeric', 'data-custom': f.key }),
    h('p', { id: `custom-${f.key}-msg`, class: 'field-msg', role: 'alert', hidden: true })));
  const mlp = h('select', { id: 'custom-mlp', 'data-custom': 'mlp' });
  fillSelect(mlp, O.CUSTOM_MLP);
  const norm = h('select', { id: 'custom-norm', 'data-custom': 'norm' });
  fillSelect(norm, O.CUSTOM_NORM);
  custom.replaceChildren(...fields,
    h('div', { class: 'field' }, h('label', { for: 'custom-mlp' }, 'MLP'), mlp, h('p', { id: 'custom-mlp-msg', class: 'field-msg', role: 'alert', hidden: true })),
    h('div', { class: 'field' }, h('label', { for: 'custom-norm' }, 'Norm'), norm, h('p', { id: 'custom-norm-msg', class: 'field-msg', role: 'alert', hidden: true })),
    h('div', { class: 'field check' }, h('label', {}, h('input', { type: 'checkbox', id: 'custom-tie', 'data-custom': 'tie_embeddings' }), ' Tied embeddings')));
  for (const fs of ['model-fieldset', 'hardware-fieldset', 'workload-fieldset']) {
    $(fs).append(h('p', { id: `${fs}-msg`, class: 'field-msg', role: 'alert', hidden: true }));
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
  if (list.some((m) => presetId(m) === state.model.preset)) sel.value = state.model.preset;
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

function fillTargets() {
  const names = O.LORA_TARGETS[currentModelType()] || O.LORA_TARGETS.default;
  let targets = state.workload.lora.targets;
  if (!targets.length || !targets.every((t) => names.includes(t))) {
    targets = names.slice();
    state.workload.lora.targets = targets;
  }
  const list = $('lora-targets-list');
  const have = [...list.querySelectorAll('input')].map((i) => i.value).join(',');
  if (have !== names.join(',')) {
    list.replaceChildren(...names.map((n) => h('label', {},
      h('input', { type: 'checkbox', value: n, 'data-target': n }), ' ', h('code', {}, n))));
  }
  for (const i of list.querySelectorAll('input')) i.checked = targets.includes(i.value);
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
    if (gpus.length) parts.push(`${gpus.length} GPU${gpus.length > 1 ? 's' : ''}`);
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

function readForm() {
  const s = state;
  s.model.source = radio('model-source');
  s.model.preset = $('preset').value || s.model.preset;
  s.model.hf = $('hf-config').value;
  for (const el of document.querySelectorAll('[data-custom]')) {
    const k = el.dataset.custom;
    s.model.custom[k] = el.type === 'checkbox' ? el.checked : el.type === 'number' ? el.value : el.value;
  }
  const w = s.workload;
  w.mode = radio('mode');
  w.precision = $('precision').value;
  w.infer_precision = $('infer-precision').value;
  w.optimizer = $('optimizer').value;
  w.finetune = radio('finetune');
  w.attn = $('attn').value;
  w.grad_ckpt = $('grad-ckpt').checked;
  w.batch = $('batch').value;
  w.seq = $('seq').value;
  w.grad_accum = $('grad-accum').value;
  w.prompt = $('prompt').value;
  w.new_tokens = $('new-tokens').value;
  w.kv_dtype = $('kv-dtype').value;
  w.image_size = $('image-size').value;
  w.lora.r = $('lora-r').value;
  w.lora.alpha = $('lora-alpha').value;
  w.lora.dropout = $('lora-dropout').value;
  w.lora.quant = $('quant-4bit').value;
  w.lora.double_quant = $('double-quant').checked;
  const t = [...document.querySelectorAll('#lora-targets-list input')];
  if (t.length) w.lora.targets = t.filter((i) => i.checked).map((i) => i.value);
  const hw = s.hardware;
  hw.source = radio('hw-source');
  hw.gpu = $('gpu').value || hw.gpu;
  hw.count = $('gpu-count').value;
  hw.probe = $('probe-text').value;
  hw.device = Number($('probe-device').value || 0);
}

function writeForm() {
  const s = state;
  setRadio('model-source', s.model.source);
  $('hf-config').value = s.model.hf;
  for (const el of document.querySelectorAll('[data-custom]')) {
    const v = s.model.custom[el.dataset.custom];
    if (el.type === 'checkbox') el.checked = !!v;
    else el.value = String(v);
  }
  const w = s.workload;
  setRadio('mode', w.mode);
  $('precision').value = w.precision;
  $('infer-precision').value = w.infer_precision;
  $('optimizer').value = w.optimizer;
  setRadio('finetune', w.finetune);
  $('attn').value = w.attn;
  $('grad-ckpt').checked = !!w.grad_ckpt;
  $('batch').value = String(w.batch);
  $('seq').value = String(w.seq);
  $('grad-accum').value = String(w.grad_accum);
  $('prompt').value = String(w.prompt);
  $('new-tokens').value = String(w.new_tokens);
  $('kv-dtype').value = w.kv_dtype;
  $('image-size').value = String(w.image_size);
  $('lora-r').value = String(w.lora.r);
  $('lora-alpha').value = String(w.lora.alpha);
  $('lora-dropout').value = String(w.lora.dropout);
  $('quant-4bit').value = w.lora.quant;
  $('double-quant').checked = !!w.lora.double_quant;
  const hw = s.hardware;
  setRadio('hw-source', hw.source);
  $('gpu-count').value = String(hw.count);
  $('probe-text').value = hw.probe;
  fillPresetList();
  fillGpuList();
  fillProbeDevices();
  fillTargets();
  syncVisibility();
}

/** Shows the fields that apply (data-show="name=value,value" or "vit"). */
function syncVisibility() {
  const vals = {
    'model-source': state.model.source, mode: state.workload.mode,
    finetune: state.workload.finetune, 'hw-source': state.hardware.source,
  };
  const vit = currentModelType() === 'vit';
  for (const el of document.querySelectorAll('[data-show]')) {
    const rule = el.dataset.show;
    let show;
    if (rule === 'vit') show = vit;
    else {
      const [k, v] = rule.split('=');
      show = v.split(',').includes(vals[k]);
    }
    el.hidden = !show;
  }
  const m = state.model;
  let info = '';
  if (m.source === 'preset') {
    const p = findModel(m.preset);
    if (p) info = [presetName(p), presetModelType(p)].filter(Boolean).join(' · ');
  } else if (m.source === 'hf') {
    try {
      const cfg = JSON.parse(m.hf);
      const name = hfConfigName(cfg);
      if (name) info = `Model: ${name}`;
    } catch { /* shown as a field message by the estimate */ }
  }
  $(m.source === 'hf' ? 'hf-config-info' : 'preset-info').textContent = info;
}

// ---- estimate ---------------------------------------------------------------------------------
function clearFieldMessages() {
  for (const el of document.querySelectorAll('.field-msg:not(#preset-search-msg)')) {
    el.hidden = true;
    el.textContent = '';
  }
  for (const el of document.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/** The element a core error path points at (see options.js ERROR_FIELDS). */
function fieldForPath(path) {
  if (!path) return null;
  if (path === 'workload.seq' || path.startsWith('workload.seq')) return state.workload.mode === 'infer' ? 'prompt' : 'seq';
  for (const [prefix, id] of O.ERROR_FIELDS) {
    if (path.startsWith(prefix)) {
      if (id === 'custom-') {
        const key = path.slice(prefix.length).split(/[.[]/)[0];
        return $(`custom-${key}`) ? `custom-${key}` : 'model-fieldset';
      }
      return id;
    }
  }
  return null;
}

function showFieldMessage(id, message) {
  const msg = id && $(`${id}-msg`);
  if (!msg) return false;
  msg.textContent = message;
  msg.hidden = false;
  const field = $(id);
  if (field) field.setAttribute('aria-invalid', 'true');
  return true;
}

function showError(field, message, path, code) {
  clearFieldMessages();
  const shown = showFieldMessage(field, message);
  renderVerdictMessage($('verdict'), 'error', 'Cannot estimate this setup',
    message, path ? `Field: ${path}${code ? ` · error: ${code}` : ''}` : shown ? null : code || null);
  for (const id of ['suggestions', 'devices', 'warnings']) $(id).classList.add('stale');
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
  const plan = buildPlan(s, { modelType: currentModelTypeOf(s) });
  const reply = await core.estimate(JSON.stringify(plan));
  return { plan, reply, est: JSON.parse(reply.text) };
}

function currentModelTypeOf(s) {
  const saved = state;
  state = s;
  try {
    return currentModelType();
  } finally {
    state = saved;
  }
}

async function runEstimate() {
  const id = ++latestId;
  const snapshot = structuredClone(state);
  let result;
  try {
    result = await estimateOf(snapshot);
  } catch (e) {
    if (id !== latestId) return;
    if (e instanceof InputError) showError(e.field, e.message);
    else showError(null, `The estimator failed: ${e.message || e}`);
    return;
  }
  if (id !== latestId) return; // a newer change is on its way
  const { est, reply } = result;
  perf.estimates += 1;
  perf.lastCoreMs = reply.ms;
  if (est && est.error) {
    const err = est.error;
    showError(fieldForPath(err.path), err.message || 'The core refused this plan.', err.path, err.code);
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
  renderVerdict($('verdict'), est, { source: sourceLine() });
  renderMiniVerdict($('mini-verdict'), est);
  renderSuggestions($('suggestions'), est);
  renderDevices($('devices'), est);
  renderWarnings($('warnings'), est);
  for (const id of ['suggestions', 'devices', 'warnings']) $(id).classList.remove('stale');
  $('stale-note').hidden = true;
  renderComparePanel();
}

// ---- compare ------------------------------------------------------------------------------------
const DIFF_LABELS = {
  'model.source': 'Model source', 'model.preset': 'Model', 'model.hf': 'config.json',
  'workload.mode': 'Mode', 'workload.precision': 'Precision', 'workload.infer_precision': 'Weights dtype',
  'workload.optimizer': 'Optimizer', 'workload.finetune': 'Fine-tuning', 'workload.lora.r': 'LoRA rank',
  'workload.lora.alpha': 'LoRA alpha', 'workload.lora.dropout': 'LoRA dropout',
  'workload.lora.targets': 'LoRA targets', 'workload.lora.quant': '4-bit type',
  'workload.lora.double_quant': 'Double quantization', 'workload.grad_ckpt': 'Gradient checkpointing',
  'workload.attn': 'Attention', 'workload.batch': 'Micro-batch', 'workload.seq': 'Sequence length',
  'workload.grad_accum': 'Gradient accumulation', 'workload.prompt': 'Prompt tokens',
  'workload.new_tokens': 'Generated tokens', 'workload.kv_dtype': 'KV cache dtype',
  'workload.image_size': 'Image size', 'hardware.source': 'Hardware source', 'hardware.gpu': 'GPU',
  'hardware.count': 'GPUs per node', 'hardware.probe': 'Probe file', 'hardware.device': 'Probe device',
};

function flatten(obj, prefix = '', out = {}) {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v, key, out);
    else out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function settingDiffs(a, b) {
  const fa = flatten(a);
  const fb = flatten(b);
  const out = [];
  for (const k of Object.keys(fb)) {
    if (String(fa[k]) === String(fb[k])) continue;
    const label = DIFF_LABELS[k] || k.replace(/^model\.custom\./, 'Custom ');
    const long = k === 'model.hf' || k === 'hardware.probe';
    const show = (v) => (typeof v === 'boolean' ? (v ? 'on' : 'off') : String(v));
    out.push({ label, from: long ? 'pasted text' : show(fa[k]), to: long ? 'changed' : show(fb[k]) });
  }
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
    const plan = buildPlan(state, { modelType: currentModelType() });
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

// ---- files ---------------------------------------------------------------------------------
async function readFileInto(file, textarea, what) {
  if (!file) return;
  if (file.size > MAX_FILE_BYTES) {
    showFieldMessage(textarea.id, `${what} is ${Math.round(file.size / 1024)} KiB; that is too large to be one.`);
    return;
  }
  textarea.value = await file.text();
  onChange();
}

// ---- events -------------------------------------------------------------------------------------
function onChange() {
  const prevType = currentModelType();
  const prevProbe = state.hardware.probe;
  readForm();
  if (currentModelType() !== prevType) fillTargets();
  if (state.hardware.probe !== prevProbe) fillProbeDevices();
  syncVisibility();
  scheduleEstimate();
  scheduleLinkUpdate();
}

function wire() {
  const form = $('setup');
  form.addEventListener('input', (e) => {
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
    if (e.target.type === 'file') return;
    if (e.target.id !== 'preset-search') onChange();
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  $('preset-search').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter') {
      e.preventDefault();
      $('preset').focus();
    }
  });
  $('hf-file').addEventListener('change', (e) => readFileInto(e.target.files[0], $('hf-config'), 'The config.json'));
  $('probe-file').addEventListener('change', (e) => readFileInto(e.target.files[0], $('probe-text'), 'The probe file'));
  const dropZone = (zone, textarea, what) => {
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
      if (e.dataTransfer?.files?.length) readFileInto(e.dataTransfer.files[0], textarea, what);
    });
  };
  dropZone($('probe-drop'), $('probe-text'), 'The probe file');
  dropZone($('hf-drop'), $('hf-config'), 'The config.json');
  // a file dropped anywhere else must not navigate away from the page
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

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
  state.model.preset = pickDefault(presets.models, O.PREFERRED_DEFAULTS.preset);
  state.hardware.gpu = pickDefault(presets.gpus, O.PREFERRED_DEFAULTS.gpu);
  if (!presets.models.length) state.model.source = 'custom';

  // A link wins; else the last setup on this browser; else the defaults.
  let restored = false;
  if (location.hash.length > 1) restored = await applyFragment(location.hash);
  if (!restored) {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved) {
      try {
        const { state: s } = await decodeShare(saved);
        state = s;
      } catch { /* ignore a stale saved setup */ }
    }
    writeForm();
    scheduleEstimate(0);
  }
}

// The page must never go blank: anything unexpected becomes a message.
window.addEventListener('unhandledrejection', (e) => {
  showBanner(`Something went wrong: ${e.reason?.message || e.reason}. Your setup is kept.`);
});
window.addEventListener('error', (e) => {
  showBanner(`Something went wrong: ${e.message}. Your setup is kept.`);
});

start();
