// chart.js: peak reserved memory against one workload value (a vramplan/sweep@1 document) as an
// inline SVG built with DOM calls: the points, the usable-memory line, the current value. Each
// point is a button: clicking it (or Enter / Space on it) calls onPick(value).
//
// Only layout here: every byte count is a field of the sweep; the axes are linear in the value
// and in bytes (0 to a little above the largest of the points and the usable line).
import { fmtBytes } from './view.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 340;
const H = 160;
const M = { left: 52, right: 10, top: 12, bottom: 28 };

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const fmtValue = (v) => Number(v).toLocaleString('en-US');

/**
 * @param {object} sweep    vramplan/sweep@1
 * @param {{label: string, current?: number, onPick?: (value: number) => void}} opts
 * @returns {SVGSVGElement}
 */
export function sweepChart(sweep, opts) {
  const points = (sweep.points || []).filter((p) => Number.isFinite(p.value) && Number.isFinite(p.peak_reserved_bytes));
  const xs = points.map((p) => p.value);
  const cur = Number.isFinite(opts.current) ? opts.current : null; // none: left to the default
  const x0 = Math.min(...xs, cur ?? Infinity);
  const x1 = Math.max(...xs, cur ?? -Infinity, x0 + 1);
  const ymax = Math.max(1, sweep.usable_bytes || 0, ...points.map((p) => p.peak_reserved_bytes)) * 1.08;
  const px = (v) => M.left + ((v - x0) / (x1 - x0)) * (W - M.left - M.right);
  const py = (b) => H - M.bottom - (b / ymax) * (H - M.top - M.bottom);

  const svg = s('svg', {
    class: 'sweep', viewBox: `0 0 ${W} ${H}`, role: 'group', 'data-field': sweep.field,
    'aria-label': `Peak reserved memory against ${opts.label}`,
  });
  // axes
  svg.append(s('line', { class: 'axis', x1: M.left, y1: H - M.bottom, x2: W - M.right, y2: H - M.bottom }));
  svg.append(s('line', { class: 'axis', x1: M.left, y1: M.top, x2: M.left, y2: H - M.bottom }));
  svg.append(s('text', { class: 'tick', x: M.left - 4, y: H - M.bottom, 'text-anchor': 'end' }, '0'));
  svg.append(s('text', { class: 'tick', x: M.left, y: H - 8, 'text-anchor': 'start' }, fmtValue(x0)));
  svg.append(s('text', { class: 'tick', x: W - M.right, y: H - 8, 'text-anchor': 'end' }, fmtValue(x1)));
  svg.append(s('text', { class: 'axis-label', x: (M.left + W - M.right) / 2, y: H - 8, 'text-anchor': 'middle' }, opts.label));
  // the usable line
  if (sweep.usable_bytes) {
    const y = py(sweep.usable_bytes);
    svg.append(s('line', { class: 'usable', x1: M.left, y1: y, x2: W - M.right, y2: y, 'data-bytes': sweep.usable_bytes }));
    svg.append(s('text', { class: 'tick usable-label', x: W - M.right, y: y - 4, 'text-anchor': 'end' }, `usable ${fmtBytes(sweep.usable_bytes)}`));
  }
  // the current value
  if (Number.isFinite(opts.current)) {
    const x = px(opts.current);
    svg.append(s('line', { class: 'current', x1: x, y1: M.top, x2: x, y2: H - M.bottom, 'data-value': opts.current }));
    svg.append(s('text', { class: 'tick current-label', x: x + 3, y: M.top + 8 }, 'now'));
  }
  // the curve, then one button per point
  svg.append(s('polyline', { class: 'curve', points: points.map((p) => `${px(p.value).toFixed(1)},${py(p.peak_reserved_bytes).toFixed(1)}`).join(' ') }));
  for (const p of points) {
    const edge = p.value === sweep.largest;
    const what = `${opts.label} ${fmtValue(p.value)}: ${fmtBytes(p.peak_reserved_bytes)} reserved, ${p.fits ? 'fits' : 'does not fit'}`;
    const dot = s('circle', {
      class: `point ${p.fits ? 'fits' : 'nofit'}${edge ? ' edge' : ''}`, cx: px(p.value).toFixed(1), cy: py(p.peak_reserved_bytes).toFixed(1),
      r: edge ? 5.5 : 4, tabindex: opts.onPick ? 0 : null, role: opts.onPick ? 'button' : null,
      'aria-label': opts.onPick ? `${what}. Use ${fmtValue(p.value)}` : what,
      'data-value': p.value, 'data-bytes': p.peak_reserved_bytes, 'data-fits': p.fits ? 'true' : 'false',
    }, s('title', {}, what));
    if (opts.onPick) {
      dot.addEventListener('click', () => opts.onPick(p.value));
      dot.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          opts.onPick(p.value);
        }
      });
    }
    svg.append(dot);
  }
  return svg;
}
