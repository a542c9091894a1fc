// cards/gpu.js: the Hardware card: a GPU preset and GPUs per node, or a probe file written by
// vramplan-probe on the node (which of its GPUs to plan against), and CPU RAM per node.
//
// A probe file is checked (size, JSON, schema, then the core's own checks) before it replaces
// the one in use: a bad file leaves the last good one in place and says why beside the drop
// zone. The setup keeps only what the estimate reads (probe.js slimProbe); what the whole file
// says about its node (host name, PCI ids, driver) stays in this tab, for the labels.
import { buildPlan, InputError } from '../plan.js';
import { $, fillSelect, radio, setRadio, numVal } from '../fields.js';
import { fmtBytes, fmtSize, gpuDisplayName } from '../view.js';
import { store, page, presetId, presetName, planInfo } from '../store.js';
import {
  describeProbe, probeNode, probeGpuLabel, slimProbe, fileKind, PROBE_SCHEMA, MAX_PROBE_BYTES,
} from '../probe.js';

/** slim probe text (as the setup keeps it) → {label, info}: what its whole file said. */
const origins = new Map();

/** Remembers what a whole probe file says, for the labels of the slim one the setup keeps. */
export function rememberProbe(fullText, label) {
  const info = describeProbe(fullText);
  if (info && info.probe.schema === PROBE_SCHEMA) origins.set(JSON.stringify(slimProbe(info.probe)), { label, info });
}

export function fillGpuList() {
  fillSelect($('gpu'), store.presets.gpus.map((g) => {
    const mem = g.memory_bytes ?? null;
    const name = presetName(g);
    return { value: presetId(g), label: typeof mem === 'number' ? `${gpuDisplayName(name)} · ${fmtSize(mem)}` : gpuDisplayName(name) };
  }), store.state.hardware.gpu);
}

/** The probe in use: what its whole file said when this tab read it, else what the setup keeps. */
function probeInUse(s = store.state) {
  const origin = origins.get(s.hardware.probe);
  if (origin) return { ...origin, whole: true };
  const info = describeProbe(s.hardware.probe);
  return info && info.probe.schema === PROBE_SCHEMA ? { label: '', info, whole: false } : null;
}

/** The probe's GPUs in the GPU list, and where the file came from. */
export function fillProbeDevices() {
  const hw = store.state.hardware;
  const used = probeInUse();
  const sel = $('probe-device');
  const gpus = used ? used.info.gpus : [];
  // hardware.device is the position in the probe's devices[] (CUDA order)
  const items = gpus.length
    ? gpus.map((g, i) => ({ value: String(i), label: probeGpuLabel(g, i) }))
    : [{ value: '0', label: 'GPU 0' }];
  fillSelect(sel, items, String(hw.device));
  if (sel.value !== String(hw.device)) {
    sel.value = items[0].value;
    hw.device = Number(items[0].value);
  }
  const parts = [];
  if (used) {
    parts.push(used.whole
      ? `From ${probeNode(used.info)}${used.label ? ` (${used.label})` : ''}`
      : 'From a link or a saved setup: GPU names, memory and compute capability only');
    if (gpus.length) parts.push(`${gpus.length} GPU${gpus.length > 1 ? 's' : ''} per node`);
    for (const w of used.info.warnings.slice(0, 3)) parts.push(`probe warning: ${w}`);
  }
  $('probe-info').textContent = parts.join(' · ');
}

export function read(s) {
  const hw = s.hardware;
  hw.source = radio('hw-source');
  hw.gpu = $('gpu').value || hw.gpu;
  hw.count = numVal($('gpu-count'));
  hw.device = Number($('probe-device').value || 0);
}

export function write(s) {
  const hw = s.hardware;
  setRadio('hw-source', hw.source);
  $('gpu-count').value = String(hw.count);
  // the paste box keeps what the person pasted or dropped while it is the probe in use (or while
  // there is none yet)
  const shown = $('probe-text').value;
  if (hw.probe && JSON.stringify(slimProbe(describeProbe(shown)?.probe)) !== hw.probe) $('probe-text').value = hw.probe;
  fillGpuList();
  fillProbeDevices();
}

export function showVals(s) {
  return { 'hw-source': s.hardware.source };
}

/** "Planned against the probe of node gpu-07: GPU 1 · ..." for the verdict, or ''. */
export function sourceLine(s) {
  if (s.hardware.source !== 'probe') return '';
  const used = probeInUse(s);
  if (!used) return '';
  const gpu = used.info.gpus[s.hardware.device];
  return `Planned against the probe of ${used.whole ? probeNode(used.info) : 'a node (from a link or a saved setup)'}: ${probeGpuLabel(gpu, s.hardware.device)}.`;
}

/** The probed GPU the plan uses, for the verdict and the device cards: {index, pci}, or null. */
export function probedGpu(s) {
  if (s.hardware.source !== 'probe') return null;
  const used = probeInUse(s);
  const g = used?.info.gpus[s.hardware.device];
  if (!g) return null;
  return {
    index: Number.isInteger(g.index) ? g.index : s.hardware.device,
    pci: typeof g.pci_bus_id === 'string' ? g.pci_bus_id : '',
  };
}

// ---- taking a probe file -------------------------------------------------------------------------
const fileLabel = (name) => String(name || 'The file').slice(0, 80);

function setStatus(text) {
  $('probe-status').textContent = text;
}

function clearError() {
  $('probe-text-msg').hidden = true;
  $('probe-text-msg').textContent = '';
  $('probe-text').removeAttribute('aria-invalid');
}

/** Says why a file was not taken, beside the drop zone (or in the banner while it is hidden). */
function refuse(message, pasted) {
  setStatus('');
  const used = probeInUse();
  const keep = used
    ? ` The estimate is still planned with ${used.whole && used.label ? used.label : 'the last good probe file'}.`
    : '';
  const text = `${message}${keep}`;
  if (store.state.hardware.source !== 'probe') {
    page.showBanner(text);
    return;
  }
  const msg = $('probe-text-msg');
  msg.textContent = text;
  msg.hidden = false;
  if (pasted) $('probe-text').setAttribute('aria-invalid', 'true');
}

/** Right away when a file arrives: the old message goes, progress shows. */
export function beginProbeFile(file) {
  clearError();
  setStatus(`Reading ${fileLabel(file.name)} (${fmtBytes(file.size)})…`);
}

/** A probe file chosen or dropped. */
export async function takeProbeFile(file) {
  beginProbeFile(file);
  const name = fileLabel(file.name);
  if (file.size > MAX_PROBE_BYTES) {
    refuse(`${name} is ${fmtBytes(file.size)}; a vramplan-probe file is at most 1 MiB (64 GPUs take about 200 KiB), so this is not one.`);
    return;
  }
  let text;
  try {
    text = await file.text();
  } catch (e) {
    refuse(`${name} could not be read (${e.message}).`);
    return;
  }
  await takeProbeText(text, name);
}

/** The core's refusal of the setup with this probe, when it is about the probe; else ''. */
async function coreRefusal(candidate) {
  let plan;
  try {
    plan = buildPlan(candidate, planInfo());
  } catch (e) {
    if (e instanceof InputError) return ''; // another field is not ready: the estimate will say so
    throw e;
  }
  const est = JSON.parse((await page.core.estimate(JSON.stringify(plan))).text);
  const path = est.error?.path || '';
  return path.startsWith('hardware.probe') || path === 'hardware.device' ? est.error.message : '';
}

/** Probe text (a file's or pasted); it replaces the probe in use only when it is a good one. */
export async function takeProbeText(text, label, pasted = false) {
  clearError();
  const name = label.charAt(0).toUpperCase() + label.slice(1);
  if (text.length > MAX_PROBE_BYTES) {
    refuse(`${name} is ${fmtBytes(text.length)}; a vramplan-probe file is at most 1 MiB (64 GPUs take about 200 KiB), so this is not one.`, pasted);
    return false;
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    refuse(`${name} is not valid JSON: ${e.message}`, pasted);
    return false;
  }
  const kind = fileKind(doc);
  if (kind !== 'probe') {
    const what = { plan: 'a vramplan plan (open it with “Open plan JSON”)', config: 'a Hugging Face config.json (it goes under Model)' }[kind]
      || (typeof doc?.schema === 'string' ? `a "${doc.schema.slice(0, 60)}" document` : 'not a vramplan-probe file (it has no "schema")');
    refuse(`${name} is ${what}, not a probe file ("schema": "${PROBE_SCHEMA}").`, pasted);
    return false;
  }
  const slim = JSON.stringify(slimProbe(doc));
  const hw = store.state.hardware;
  const candidate = structuredClone(store.state);
  Object.assign(candidate.hardware, { source: 'probe', probe: slim, device: slim === hw.probe ? hw.device : 0 });
  const why = await coreRefusal(candidate);
  if (why) {
    refuse(`${name} cannot be planned with: ${why}`, pasted);
    return false;
  }
  origins.set(slim, { label, info: describeProbe(text) });
  if (!pasted) $('probe-text').value = text;
  Object.assign(hw, candidate.hardware);
  const n = Array.isArray(doc.devices) ? doc.devices.length : 0;
  setStatus(`Loaded ${label}: ${n} GPU${n === 1 ? '' : 's'}.`);
  page.hideApplied();
  page.writeForm();
  page.scheduleEstimate(0);
  page.scheduleLinkUpdate();
  return true;
}

let pasteTimer = 0;
export function wire() {
  $('probe-text').addEventListener('input', () => {
    clearTimeout(pasteTimer);
    clearError();
    pasteTimer = setTimeout(() => {
      const text = $('probe-text').value;
      if (text.trim()) takeProbeText(text, 'the pasted JSON', true);
    }, 250);
  });
}
