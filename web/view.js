// view.js: draws an estimate (docs/schema/estimate.md) and the compare table.
//
// Every number shown comes from the estimate JSON; this module only formats and lays out.
// Every string from a config, a probe file or the estimate is put in the page as text
// (h() makes text nodes; nothing here sets innerHTML).

import { PHASE_LABELS } from './options.js';

/** h('p', {class: 'x'}, 'text', child) → element; strings become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'style' && typeof v === 'object') {
      for (const [p, val] of Object.entries(v)) el.style.setProperty(p, val);
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.append(c);
    else el.append(document.createTextNode(String(c)));
  }
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** 85017493504 → "79.18 GiB"; small values in MiB/KiB/B. */
export function fmtBytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  const a = Math.abs(n);
  const sign = n < 0 ? '−' : '';
  if (a >= GiB) return `${sign}${(a / GiB).toFixed(a >= 100 * GiB ? 1 : 2)} GiB`;
  if (a >= MiB) return `${sign}${(a / MiB).toFixed(a >= 100 * MiB ? 0 : 1)} MiB`;
  if (a >= 1024) return `${sign}${(a / 1024).toFixed(1)} KiB`;
  return `${sign}${a} B`;
}

/** A signed difference for the compare table ("+1.20 GiB", "−512 MiB", "="). */
export function fmtDelta(n) {
  if (n === 0) return '=';
  return n > 0 ? `+${fmtBytes(n)}` : fmtBytes(n);
}

/** 1235814400 → "1.24B" */
export function fmtCount(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

/** A memory size that is a whole number of GiB as "24 GiB", else as fmtBytes does. */
export function fmtSize(n) {
  return typeof n === 'number' && n > 0 && n % GiB === 0 ? `${n / GiB} GiB` : fmtBytes(n);
}

/**
 * A GPU's name without the maker's decimal size ("NVIDIA A10 24GB" → "NVIDIA A10"): the page
 * writes every size in GiB, from the numbers, so a name never shows a second unit beside them.
 */
export function gpuDisplayName(name) {
  return String(name ?? '').replace(/\s*\b\d+(?:\.\d+)?\s?GB\b/g, '').trim() || String(name ?? '');
}

/** The core's sentence with each GPU named as the page names it (gpuDisplayName, the probed GPU). */
function displaySummary(text, devices, ctx = {}) {
  let out = String(text);
  for (const d of devices || []) {
    if (d.kind === 'cpu') continue;
    if (d.name) out = out.split(d.name).join(gpuDisplayName(d.name));
    const index = probedIndex(d, ctx);
    if (index !== d.index) out = out.replace(new RegExp(`\\bGPU ${d.index}\\b`), `GPU ${index}`);
  }
  return out;
}

export const UNITS_NOTE = 'Sizes in GiB and MiB, binary: 1 GiB = 2^30 bytes.';

const exact = (n) => `${Number(n).toLocaleString('en-US')} bytes`;

function bytesCell(n, extra = {}) {
  return h('span', { class: 'bytes', 'data-bytes': n, title: exact(n), ...extra }, fmtBytes(n));
}

/**
 * A device's title. With a probe file and a one-GPU job, the GPU is the probed one: it is named by
 * its index in the file (the job's "GPU 0" runs on it). ctx.probed = {index, pci} or null.
 */
function deviceTitle(d, ctx = {}) {
  if (d.kind === 'cpu') return d.name || 'CPU RAM';
  const index = probedIndex(d, ctx);
  return d.name ? `GPU ${index} · ${gpuDisplayName(d.name)}` : `GPU ${index}`;
}

const gpuCountOf = (est) => (est.devices || []).filter((d) => d.kind !== 'cpu').length;
const probedIndex = (d, ctx) => (ctx.probed && ctx.oneGpu ? ctx.probed.index : d.index);

/** The naming context of an estimate: the probed GPU, and whether the job has one GPU. */
function namingContext(est, context = {}) {
  return { probed: context.probed || null, oneGpu: gpuCountOf(est) === 1 };
}

/** The device with the least headroom: the one the verdict talks about. */
function tightest(est) {
  let worst = null;
  for (const d of est.devices || []) {
    if (d.kind === 'cpu') continue;
    if (!worst || d.headroom_bytes < worst.headroom_bytes) worst = d;
  }
  return worst || (est.devices || [])[0] || null;
}

function stat(label, n, key) {
  return h('div', { class: 'stat' },
    h('dt', {}, label),
    h('dd', {}, bytesCell(n, { 'data-key': key })));
}

/** The verdict block: fits or not, headroom, the two numbers people check. */
export function renderVerdict(root, est, context = {}) {
  const d = tightest(est);
  const ctx = namingContext(est, context);
  root.className = `verdict ${est.fits ? 'fits' : 'nofit'}`;
  root.setAttribute('data-fits', est.fits ? 'true' : 'false');
  const head = est.fits ? 'Fits' : 'Does not fit';
  const kids = [h('p', { class: 'verdict-head' }, h('span', { class: 'badge' }, est.fits ? '✓' : '✗'), ' ', head)];
  const summary = est.summary ? displaySummary(est.summary, est.devices, ctx) : '';
  if (!est.fits && summary) kids.push(h('p', { class: 'summary', 'data-key': 'summary' }, summary));
  if (d) {
    const room = d.headroom_bytes;
    kids.push(h('p', { class: 'headroom' },
      room >= 0 ? 'Headroom ' : 'Short by ',
      bytesCell(Math.abs(room), { 'data-key': 'headroom', 'data-signed': room }),
      ` on ${deviceTitle(d, ctx)}`,
      d.usable_bytes ? [' (', fmtBytes(d.usable_bytes), ' usable)'] : null));
    kids.push(h('dl', { class: 'stats' },
      stat('PyTorch allocated (peak)', d.peak_alloc_bytes, 'peak_alloc_bytes'),
      stat('PyTorch reserved (peak)', d.peak_reserved_bytes, 'peak_reserved_bytes'),
      stat('nvidia-smi will show', d.nvidia_smi_bytes, 'nvidia_smi_bytes')));
  }
  if (est.fits && summary) kids.push(h('p', { class: 'summary muted' }, summary));
  if (context.source) kids.push(h('p', { class: 'source muted' }, context.source));
  kids.push(h('p', { class: 'units muted' }, UNITS_NOTE));
  root.replaceChildren(...kids);
}

/** The one-line verdict kept in view on narrow screens. */
export function renderMiniVerdict(el, est) {
  const d = tightest(est);
  el.className = `mini-verdict ${est.fits ? 'fits' : 'nofit'}`;
  const head = est.fits ? '✓ Fits' : '✗ Does not fit';
  const n = (est.warnings || []).length;
  const warn = n ? ` · ⚠ ${n} warning${n > 1 ? 's' : ''}` : '';
  if (!d) el.textContent = head + warn;
  else if (d.headroom_bytes >= 0) el.textContent = `${head} · ${fmtBytes(d.headroom_bytes)} headroom${warn} · details ↓`;
  else el.textContent = `${head} · short by ${fmtBytes(-d.headroom_bytes)}${warn} · details ↓`;
  el.hidden = false;
}

export function renderVerdictMessage(root, kind, title, message, detail) {
  root.className = `verdict ${kind}`;
  root.removeAttribute('data-fits');
  // replaceChildren would write a null as the text "null": leave the missing parts out
  const kids = [h('p', { class: 'verdict-head' }, title)];
  if (message) kids.push(h('p', { class: 'summary' }, message));
  if (detail) kids.push(h('p', { class: 'muted' }, detail));
  root.replaceChildren(...kids);
}

function instanceLine(est) {
  const many = (est.instances || []).length > 1;
  return (est.instances || []).map((i) => h('p', { class: 'instance' },
    h('strong', {}, i.name || 'model'),
    many && i.role ? ` · ${i.role}` : '',
    i.model_type ? ` · ${i.model_type}` : '',
    ` · ${fmtCount(i.params_total)} params`,
    i.params_trainable === 0 ? ' (frozen)'
      : i.params_trainable !== i.params_total ? ` (${fmtCount(i.params_trainable)} trainable)` : ' (all trainable)'));
}

function componentLabel(c, manyInstances) {
  return manyInstances && c.instance ? `${c.label} (${c.instance})` : c.label;
}

/** "0, 1, 2, 3" → "1–3" style lists of GPU indices. */
function indexRanges(list) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    let j = i;
    while (j + 1 < list.length && list[j + 1] === list[j] + 1) j++;
    out.push(j > i + 1 ? `${list[i]}–${list[j]}` : j === i + 1 ? `${list[i]}, ${list[j]}` : String(list[i]));
    i = j;
  }
  return out.join(', ');
}

/**
 * The bar scale of a set of devices: the largest of what one offers and what one holds. GPUs
 * share one scale, so GPU 0 and GPU 1 compare at a glance; CPU RAM gets its own (offloaded
 * optimizer states or a 2 TiB node would otherwise shrink every GPU bar to a sliver).
 */
function deviceScale(devices) {
  let scale = 1;
  for (const d of devices) scale = Math.max(scale, d.peak_alloc_bytes || 0, d.nvidia_smi_bytes || 0, d.capacity_bytes || 0);
  return scale;
}

/** Stacked bar + verdict + breakdown table + phase timeline for one device. */
function renderDevice(d, est, scale, same, ctx) {
  const manyInstances = (est.instances || []).length > 1;
  const cpu = d.kind === 'cpu';
  const comps = d.components || []; // the core's order (largest first)
  const pct = (n) => `${Math.max(0, (100 * n) / scale).toFixed(3)}%`;

  const segments = comps.filter((c) => c.bytes > 0).map((c) => h('span', {
    class: 'seg', 'data-c': c.id, 'data-instance': c.instance || null, style: { width: pct(c.bytes) },
    title: `${componentLabel(c, manyInstances)}: ${fmtBytes(c.bytes)}`,
  }));
  const markers = [];
  const hasLimit = !!d.usable_bytes;
  if (hasLimit) {
    markers.push(h('span', { class: 'marker usable', style: { left: pct(d.usable_bytes) }, title: `usable: ${fmtBytes(d.usable_bytes)}` }));
  }
  if (d.nvidia_smi_bytes) {
    markers.push(h('span', { class: 'marker smi', style: { left: pct(d.nvidia_smi_bytes) }, title: `nvidia-smi: ${fmtBytes(d.nvidia_smi_bytes)}` }));
  }
  const title = deviceTitle(d, ctx);
  const bar = h('div', {
    class: 'bar', role: 'img',
    'aria-label': `${title}: ${fmtBytes(d.peak_alloc_bytes)} allocated at peak${d.capacity_bytes ? ` of ${fmtBytes(d.capacity_bytes)}` : ''}; largest ${comps.slice(0, 3).map((c) => `${componentLabel(c, manyInstances)} ${fmtBytes(c.bytes)}`).join(', ')}`,
  }, segments, markers);

  const rows = comps.map((c) => h('tr', { 'data-c': c.id, 'data-instance': c.instance || null },
    h('th', { scope: 'row' }, h('span', { class: 'swatch', 'data-c': c.id, 'aria-hidden': 'true' }), componentLabel(c, manyInstances)),
    h('td', { class: 'num' }, bytesCell(c.bytes)),
    h('td', { class: 'explain' }, c.explain || '')));
  const phaseName = PHASE_LABELS[d.peak_phase] || d.peak_phase;
  const table = h('table', { class: 'components' },
    h('caption', { class: 'sr-only' }, `Memory at the ${phaseName} peak on ${title}`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Component'), h('th', { scope: 'col', class: 'num' }, 'Bytes'), h('th', { scope: 'col' }, 'How'))),
    h('tbody', {}, rows),
    h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'Allocated at peak'), h('td', { class: 'num' }, bytesCell(d.peak_alloc_bytes)), h('td', {}, ''))));

  const phases = d.phases || [];
  const pmax = Math.max(1, ...phases.map((p) => p.alloc_bytes));
  const timeline = h('ol', { class: 'phases', 'aria-label': `Allocated memory by phase on ${title}` },
    phases.map((p) => {
      const peak = p.name === d.peak_phase;
      return h('li', { class: peak ? 'phase peak' : 'phase', 'data-phase': p.name, 'aria-current': peak ? 'true' : null },
        h('span', { class: 'phase-name' }, PHASE_LABELS[p.name] || p.name, peak ? h('span', { class: 'peak-tag' }, 'peak') : null),
        h('span', { class: 'phase-bar', 'aria-hidden': 'true' }, h('span', { style: { width: `${((100 * p.alloc_bytes) / pmax).toFixed(2)}%` } })),
        h('span', { class: 'num' }, bytesCell(p.alloc_bytes)));
    }));

  const verdict = d.fits
    ? h('p', { class: 'device-verdict fits', 'data-key': 'device-fits' }, h('span', { class: 'badge', 'aria-hidden': 'true' }, '✓'), ' Fits',
      d.usable_bytes ? [' · ', bytesCell(d.headroom_bytes), ' headroom'] : null)
    : h('p', { class: 'device-verdict nofit', 'data-key': 'device-fits' }, h('span', { class: 'badge', 'aria-hidden': 'true' }, '✗'), ' Does not fit',
      d.usable_bytes ? [' · short by ', bytesCell(-d.headroom_bytes)] : null);
  const facts = cpu
    ? [`${fmtBytes(d.peak_alloc_bytes)} in RAM · `,
      d.capacity_bytes ? `${fmtBytes(d.capacity_bytes)} per node` : 'RAM size not given (Hardware → CPU RAM)',
      ' · bar on its own scale']
    : [`${fmtBytes(d.peak_alloc_bytes)} allocated · ${fmtBytes(d.nvidia_smi_bytes)} in nvidia-smi · `,
      `${fmtBytes(d.capacity_bytes)} offered by CUDA`,
      d.context_bytes ? ` · CUDA context ${fmtBytes(d.context_bytes)}` : ''];
  const probed = !cpu && ctx.probed
    ? h('p', { class: 'muted probed' }, ctx.oneGpu
      ? `The probe file’s GPU ${ctx.probed.index}${ctx.probed.pci ? ` (${ctx.probed.pci})` : ''}, with the free memory it measured.`
      : `Planned with the memory of the probe file’s GPU ${ctx.probed.index}${ctx.probed.pci ? ` (${ctx.probed.pci})` : ''}.`)
    : null;

  return h('article', { class: `device card ${d.fits ? 'fits' : 'nofit'}`, 'data-index': d.index, 'data-kind': d.kind || 'gpu', 'aria-label': title },
    h('header', {},
      h('h3', {}, title, same.length ? h('span', { class: 'muted same' }, ` (same on GPU ${indexRanges(same)})`) : null),
      verdict,
      h('p', { class: 'muted peak-line' }, 'Peak: ', h('strong', { 'data-key': 'peak_phase' }, phaseName)),
      h('p', { class: 'muted' }, facts),
      probed),
    bar,
    h('p', { class: 'legend muted' },
      hasLimit ? h('span', { class: 'key usable' }, cpu ? 'RAM limit' : 'usable limit') : null, ' ',
      d.nvidia_smi_bytes ? h('span', { class: 'key smi' }, 'nvidia-smi') : null),
    table,
    h('h4', {}, 'Timeline'),
    timeline);
}

/**
 * Everything below the verdict: one card per device, side by side (GPUs on one scale, then
 * CPU RAM on its own). GPUs whose numbers are all identical are drawn once ("same on GPU 1–7").
 */
export function renderDevices(root, est, context = {}) {
  const devices = est.devices || [];
  const ctx = namingContext(est, context);
  const gpuScale = deviceScale(devices.filter((d) => d.kind !== 'cpu'));
  const groups = [];
  const byKey = new Map();
  for (const d of devices) {
    const key = d.kind === 'cpu' ? null : JSON.stringify({ ...d, index: 0 });
    if (key && byKey.has(key)) {
      byKey.get(key).same.push(d.index);
      continue;
    }
    const g = { d, same: [] };
    if (key) byKey.set(key, g);
    groups.push(g);
  }
  const cards = groups.map((g) => renderDevice(g.d, est, g.d.kind === 'cpu' ? deviceScale([g.d]) : gpuScale, g.same, ctx));
  root.replaceChildren(...instanceLine(est),
    h('div', { class: `device-grid${cards.length > 1 ? ' many' : ''}` }, cards));
}

/**
 * "What to change": the core's suggestions, each one change re-estimated, best first. Each
 * gets an Apply button (data-apply = its index) when opts.canApply says the page can make
 * that change in the form.
 */
export function renderSuggestions(root, est, opts = {}) {
  const list = est.suggestions || [];
  if (!list.length) {
    root.replaceChildren();
    return;
  }
  const can = opts.canApply || (() => false);
  root.replaceChildren(h('section', { class: 'suggestions card', 'aria-labelledby': 'suggestions-title' },
    h('h3', { id: 'suggestions-title' }, est.fits ? 'Tight: what would give more room' : 'What to change'),
    h('ol', { tabindex: '-1', 'aria-labelledby': 'suggestions-title' }, list.map((x, i) => h('li', { class: x.fits ? 'fits' : 'nofit', 'data-id': x.id },
      h('span', { class: 'badge', title: x.fits ? 'fits after this change' : 'still does not fit' }, x.fits ? '✓' : '✗'),
      h('span', { class: 'change' }, x.change),
      h('span', { class: 'effect muted' },
        'saves ', bytesCell(x.saves_bytes), ' → ', bytesCell(x.peak_reserved_bytes), ' reserved',
        x.fits ? ' · fits' : ' · still too much'),
      can(x)
        ? h('button', { type: 'button', class: 'apply secondary', 'data-apply': i, 'aria-label': `Apply: ${x.change}` }, 'Apply')
        : h('span', { class: 'apply muted', title: 'The form has no input for this change' }, '–'))))));
}

/** The core's warnings (a layout that uses fewer GPUs than the node has, a setting that does nothing). */
export function renderWarnings(root, est) {
  const w = est.warnings || [];
  root.replaceChildren(...(w.length ? [h('section', { class: 'warnings', role: 'note', 'aria-labelledby': 'warnings-title' },
    h('p', { class: 'warnings-title', id: 'warnings-title' }, h('span', { 'aria-hidden': 'true' }, '⚠ '),
      w.length > 1 ? `Check these ${w.length} things about this setup` : 'Check this about the setup'),
    h('ul', {}, w.map((x) => h('li', {}, x))))] : []));
}

/** Pinned vs current: what changed in the setup, then the numbers side by side. */
export function renderCompare(root, pinned, current, settingDiffs) {
  const a = tightest(pinned.estimate);
  const b = tightest(current.estimate);
  const rows = [];
  const row = (label, va, vb, delta, attrs = {}) => rows.push(h('tr', attrs,
    h('th', { scope: 'row' }, label), h('td', { class: 'num' }, va), h('td', { class: 'num' }, vb), h('td', { class: 'num delta' }, delta)));
  const bytesRow = (label, x, y, key) => {
    const changed = x !== y;
    // a component absent from one peak holds 0 bytes there (components sum to the peak)
    row(label, x === undefined ? '–' : bytesCell(x), y === undefined ? '–' : bytesCell(y),
      fmtDelta((y || 0) - (x || 0)), { class: changed ? 'changed' : null, 'data-key': key });
  };
  row('Verdict', pinned.estimate.fits ? 'fits' : 'does not fit', current.estimate.fits ? 'fits' : 'does not fit',
    pinned.estimate.fits === current.estimate.fits ? '' : 'changed', { class: pinned.estimate.fits === current.estimate.fits ? null : 'changed' });
  if (a && b) {
    bytesRow('PyTorch allocated (peak)', a.peak_alloc_bytes, b.peak_alloc_bytes, 'peak_alloc_bytes');
    bytesRow('nvidia-smi will show', a.nvidia_smi_bytes, b.nvidia_smi_bytes, 'nvidia_smi_bytes');
    bytesRow('Headroom', a.headroom_bytes, b.headroom_bytes, 'headroom_bytes');
    row('Peak phase', PHASE_LABELS[a.peak_phase] || a.peak_phase, PHASE_LABELS[b.peak_phase] || b.peak_phase, '');
    const many = (pinned.estimate.instances || []).length > 1 || (current.estimate.instances || []).length > 1;
    const byId = (d) => {
      const m = new Map();
      for (const c of d.components || []) {
        const k = c.instance ? `${c.id}\u0000${c.instance}` : c.id;
        m.set(k, { label: componentLabel(c, many), bytes: (m.get(k)?.bytes || 0) + c.bytes });
      }
      return m;
    };
    const ma = byId(a);
    const mb = byId(b);
    for (const k of new Set([...ma.keys(), ...mb.keys()])) {
      const ca = ma.get(k);
      const cb = mb.get(k);
      bytesRow(h('span', {}, h('span', { class: 'swatch', 'data-c': k.split('\u0000')[0], 'aria-hidden': 'true' }), (cb || ca).label),
        ca?.bytes, cb?.bytes);
    }
  }
  const diffList = settingDiffs.length
    ? h('ul', { class: 'diffs' }, settingDiffs.map((d) => h('li', {}, h('strong', {}, d.label), ': ', h('span', { class: 'old' }, d.from), ' → ', h('span', { class: 'new' }, d.to))))
    : h('p', { class: 'muted' }, 'Same setup as the pinned one. Change something to compare.');
  root.replaceChildren(
    h('h3', {}, 'What changed'),
    diffList,
    h('div', { class: 'table-wrap' }, h('table', { class: 'compare-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col', class: 'num' }, 'Pinned'), h('th', { scope: 'col', class: 'num' }, 'Current'), h('th', { scope: 'col', class: 'num' }, 'Difference'))),
      h('tbody', {}, rows))));
}
