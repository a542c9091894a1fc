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

const exact = (n) => `${Number(n).toLocaleString('en-US')} bytes`;

function bytesCell(n, extra = {}) {
  return h('span', { class: 'bytes', 'data-bytes': n, title: exact(n), ...extra }, fmtBytes(n));
}

function deviceTitle(d) {
  const where = d.kind === 'cpu' ? 'CPU' : `GPU ${d.index}`;
  return d.name ? `${where} · ${d.name}` : where;
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
  root.className = `verdict ${est.fits ? 'fits' : 'nofit'}`;
  root.setAttribute('data-fits', est.fits ? 'true' : 'false');
  const head = est.fits ? 'Fits' : 'Does not fit';
  const kids = [h('p', { class: 'verdict-head' }, h('span', { class: 'badge' }, est.fits ? '✓' : '✗'), ' ', head)];
  if (!est.fits && est.summary) kids.push(h('p', { class: 'summary', 'data-key': 'summary' }, est.summary));
  if (d) {
    const room = d.headroom_bytes;
    kids.push(h('p', { class: 'headroom' },
      room >= 0 ? 'Headroom ' : 'Short by ',
      bytesCell(Math.abs(room), { 'data-key': 'headroom', 'data-signed': room }),
      ` on ${deviceTitle(d)}`,
      d.usable_bytes ? [' (', fmtBytes(d.usable_bytes), ' usable)'] : null));
    kids.push(h('dl', { class: 'stats' },
      stat('PyTorch allocated (peak)', d.peak_alloc_bytes, 'peak_alloc_bytes'),
      stat('PyTorch reserved (peak)', d.peak_reserved_bytes, 'peak_reserved_bytes'),
      stat('nvidia-smi will show', d.nvidia_smi_bytes, 'nvidia_smi_bytes')));
  }
  if (est.fits && est.summary) kids.push(h('p', { class: 'summary muted' }, est.summary));
  if (context.source) kids.push(h('p', { class: 'source muted' }, context.source));
  root.replaceChildren(...kids);
}

/** The one-line verdict kept in view on narrow screens. */
export function renderMiniVerdict(el, est) {
  const d = tightest(est);
  el.className = `mini-verdict ${est.fits ? 'fits' : 'nofit'}`;
  const head = est.fits ? '✓ Fits' : '✗ Does not fit';
  if (!d) el.textContent = head;
  else if (d.headroom_bytes >= 0) el.textContent = `${head} · ${fmtBytes(d.headroom_bytes)} headroom · details ↓`;
  else el.textContent = `${head} · short by ${fmtBytes(-d.headroom_bytes)} · details ↓`;
  el.hidden = false;
}

export function renderVerdictMessage(root, kind, title, message, detail) {
  root.className = `verdict ${kind}`;
  root.removeAttribute('data-fits');
  root.replaceChildren(
    h('p', { class: 'verdict-head' }, title),
    message ? h('p', { class: 'summary' }, message) : null,
    detail ? h('p', { class: 'muted' }, detail) : null);
}

function instanceLine(est) {
  const many = (est.instances || []).length > 1;
  return (est.instances || []).map((i) => h('p', { class: 'instance' },
    h('strong', {}, i.name || 'model'),
    i.model_type ? ` · ${i.model_type}` : '',
    ` · ${fmtCount(i.params_total)} params`,
    i.params_trainable !== i.params_total ? ` (${fmtCount(i.params_trainable)} trainable)` : ' (all trainable)',
    many && i.role ? ` · ${i.role}` : ''));
}

function componentLabel(c, manyInstances) {
  return manyInstances && c.instance ? `${c.label} (${c.instance})` : c.label;
}

/** Stacked bar + breakdown table + phase timeline for one device. */
function renderDevice(d, est) {
  const manyInstances = (est.instances || []).length > 1;
  const comps = d.components || []; // the core's order (largest first)
  // Scale: the larger of what the device offers and what the job wants, so an overflow shows.
  const scale = Math.max(d.capacity_bytes || 0, d.nvidia_smi_bytes || 0, d.peak_alloc_bytes || 0, 1);
  const pct = (n) => `${Math.max(0, (100 * n) / scale).toFixed(3)}%`;

  const segments = comps.filter((c) => c.bytes > 0).map((c) => h('span', {
    class: 'seg', 'data-c': c.id, style: { width: pct(c.bytes) },
    title: `${componentLabel(c, manyInstances)}: ${fmtBytes(c.bytes)}`,
  }));
  const markers = [];
  if (d.usable_bytes) {
    markers.push(h('span', { class: 'marker usable', style: { left: pct(d.usable_bytes) }, title: `usable: ${fmtBytes(d.usable_bytes)}` }));
  }
  if (d.nvidia_smi_bytes) {
    markers.push(h('span', { class: 'marker smi', style: { left: pct(d.nvidia_smi_bytes) }, title: `nvidia-smi: ${fmtBytes(d.nvidia_smi_bytes)}` }));
  }
  const bar = h('div', {
    class: 'bar', role: 'img',
    'aria-label': `${deviceTitle(d)}: ${fmtBytes(d.peak_alloc_bytes)} allocated at peak of ${fmtBytes(d.capacity_bytes)}; largest ${comps.slice(0, 3).map((c) => `${c.label} ${fmtBytes(c.bytes)}`).join(', ')}`,
  }, segments, markers);

  const rows = comps.map((c) => h('tr', { 'data-c': c.id },
    h('th', { scope: 'row' }, h('span', { class: 'swatch', 'data-c': c.id, 'aria-hidden': 'true' }), componentLabel(c, manyInstances)),
    h('td', { class: 'num' }, bytesCell(c.bytes)),
    h('td', { class: 'explain' }, c.explain || '')));
  const table = h('table', { class: 'components' },
    h('caption', { class: 'sr-only' }, `Memory at the ${PHASE_LABELS[d.peak_phase] || d.peak_phase} peak on ${deviceTitle(d)}`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Component'), h('th', { scope: 'col', class: 'num' }, 'Bytes'), h('th', { scope: 'col' }, 'How'))),
    h('tbody', {}, rows),
    h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'Allocated at peak'), h('td', { class: 'num' }, bytesCell(d.peak_alloc_bytes)), h('td', {}, ''))));

  const phases = d.phases || [];
  const pmax = Math.max(1, ...phases.map((p) => p.alloc_bytes));
  const timeline = h('ol', { class: 'phases', 'aria-label': 'Allocated memory by phase' },
    phases.map((p) => {
      const peak = p.name === d.peak_phase;
      return h('li', { class: peak ? 'phase peak' : 'phase', 'data-phase': p.name, 'aria-current': peak ? 'true' : null },
        h('span', { class: 'phase-name' }, PHASE_LABELS[p.name] || p.name, peak ? h('span', { class: 'peak-tag' }, 'peak') : null),
        h('span', { class: 'phase-bar', 'aria-hidden': 'true' }, h('span', { style: { width: `${((100 * p.alloc_bytes) / pmax).toFixed(2)}%` } })),
        h('span', { class: 'num' }, bytesCell(p.alloc_bytes)));
    }));

  return h('article', { class: `device card ${d.fits ? 'fits' : 'nofit'}`, 'data-index': d.index, 'aria-label': deviceTitle(d) },
    h('header', {},
      h('h3', {}, deviceTitle(d)),
      h('p', { class: 'muted' },
        `${fmtBytes(d.peak_alloc_bytes)} allocated · ${fmtBytes(d.nvidia_smi_bytes)} in nvidia-smi · `,
        `${fmtBytes(d.capacity_bytes)} total`,
        d.context_bytes ? ` · CUDA context ${fmtBytes(d.context_bytes)}` : '')),
    bar,
    h('p', { class: 'legend muted' }, h('span', { class: 'key usable' }, 'usable limit'), ' ', h('span', { class: 'key smi' }, 'nvidia-smi')),
    table,
    h('h4', {}, 'Timeline'),
    timeline);
}

/** Everything below the verdict. Identical GPUs with identical numbers are drawn once. */
export function renderDevices(root, est) {
  const out = [...instanceLine(est)];
  const seen = new Map();
  for (const d of est.devices || []) {
    const key = JSON.stringify({ ...d, index: 0 });
    if (seen.has(key)) {
      seen.get(key).push(d.index);
      continue;
    }
    seen.set(key, []);
    const el = renderDevice(d, est);
    out.push(el);
    el._same = seen.get(key);
  }
  for (const el of out) {
    if (el._same && el._same.length) {
      el.querySelector('h3').append(h('span', { class: 'muted' }, ` (same on GPU ${el._same.join(', ')})`));
    }
  }
  root.replaceChildren(...out);
}

/** "What to change": the core's suggestions, each one change re-estimated, best first. */
export function renderSuggestions(root, est) {
  const list = est.suggestions || [];
  if (!list.length) {
    root.replaceChildren();
    return;
  }
  root.replaceChildren(h('section', { class: 'suggestions card', 'aria-labelledby': 'suggestions-title' },
    h('h3', { id: 'suggestions-title' }, est.fits ? 'Tight: what would give more room' : 'What to change'),
    h('ol', {}, list.map((x) => h('li', { class: x.fits ? 'fits' : 'nofit', 'data-id': x.id },
      h('span', { class: 'badge', title: x.fits ? 'fits after this change' : 'still does not fit' }, x.fits ? '✓' : '✗'),
      h('span', { class: 'change' }, x.change),
      h('span', { class: 'effect muted' },
        'saves ', bytesCell(x.saves_bytes), ' → ', bytesCell(x.peak_reserved_bytes), ' reserved',
        x.fits ? ' · fits' : ' · still too much'))))));
}

export function renderWarnings(root, est) {
  const w = est.warnings || [];
  root.replaceChildren(...(w.length ? [h('ul', { class: 'warnings', 'aria-label': 'Warnings' }, w.map((x) => h('li', {}, x)))] : []));
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
    const byId = (d) => {
      const m = new Map();
      for (const c of d.components || []) {
        const k = c.instance ? `${c.id}\u0000${c.instance}` : c.id;
        m.set(k, { label: c.label, bytes: (m.get(k)?.bytes || 0) + c.bytes });
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
