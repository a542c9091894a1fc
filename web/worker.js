// worker.js: runs the WebAssembly core off the main thread.
//
// Messages in:  {id, type: 'init'}              → {id, ok, presets, version}
//               {id, type: 'estimate', plan}    → {id, ok, text, ms}   (plan: JSON text)
//               {id, type: 'bench', plan, n}    → {id, ok, median_ms, mean_ms, max_ms}
// A failure of the module itself answers {id, ok: false, error}. Estimate errors from the
// core are ordinary results: their text is {"error":{...}}.
import { loadCore } from './vramplan-core.js';

const ready = loadCore();

self.onmessage = async (ev) => {
  const { id, type } = ev.data || {};
  try {
    const core = await ready;
    if (type === 'init') {
      self.postMessage({ id, ok: true, presets: core.presets(), version: core.version() });
    } else if (type === 'estimate') {
      const t0 = performance.now();
      const text = core.estimate(ev.data.plan, false);
      self.postMessage({ id, ok: true, text, ms: performance.now() - t0 });
    } else if (type === 'bench') {
      const n = Math.max(1, Math.min(100000, ev.data.n | 0));
      const ms = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        core.estimate(ev.data.plan, false);
        ms.push(performance.now() - t0);
      }
      const sorted = ms.slice().sort((a, b) => a - b);
      const mean = ms.reduce((a, b) => a + b, 0) / n;
      self.postMessage({ id, ok: true, median_ms: sorted[n >> 1], mean_ms: mean, max_ms: sorted[n - 1] });
    } else {
      self.postMessage({ id, ok: false, error: `unknown message type ${String(type)}` });
    }
  } catch (e) {
    self.postMessage({ id, ok: false, error: String((e && e.message) || e) });
  }
};
