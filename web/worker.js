// worker.js: runs the WebAssembly core off the main thread. The page starts two: one for the
// estimate of every change, one for the planning answers (fit, sweep, recommend), so a slow
// search never delays an estimate.
//
// Messages in:  {id, type: 'init'}                            → {id, ok, presets, version, features}
//               {id, type: 'estimate', plan}                  → {id, ok, text, ms}   (plan: JSON text)
//               {id, type: 'fit', plan, field}                → {id, ok, text, ms}
//               {id, type: 'sweep', plan, field, points}      → {id, ok, text, ms}
//               {id, type: 'recommend', plan, global_batch}   → {id, ok, text, ms}
//               {id, type: 'expand', plan, index, keep_seq}   → {id, ok, text, ms}   ({"added","plan"})
//               {id, type: 'bench', plan, n}                  → {id, ok, median_ms, mean_ms, max_ms}
// A failure of the module itself answers {id, ok: false, error}. Errors from the core are
// ordinary results: their text is {"error":{...}}.
import { loadCore } from './vramplan-core.js';

const ready = loadCore();

const timed = (f) => {
  const t0 = performance.now();
  const text = f();
  return { text, ms: performance.now() - t0 };
};

self.onmessage = async (ev) => {
  const { id, type, plan } = ev.data || {};
  try {
    const core = await ready;
    if (type === 'init') {
      self.postMessage({ id, ok: true, presets: core.presets(), version: core.version(), features: core.features() });
    } else if (type === 'estimate') {
      self.postMessage({ id, ok: true, ...timed(() => core.estimate(plan, false)) });
    } else if (type === 'fit') {
      self.postMessage({ id, ok: true, ...timed(() => core.fit(plan, ev.data.field)) });
    } else if (type === 'sweep') {
      self.postMessage({ id, ok: true, ...timed(() => core.sweep(plan, ev.data.field, ev.data.points)) });
    } else if (type === 'recommend') {
      self.postMessage({ id, ok: true, ...timed(() => core.recommend(plan, ev.data.global_batch)) });
    } else if (type === 'expand') {
      self.postMessage({ id, ok: true, ...timed(() => core.expandPipeline(plan, ev.data.index | 0, !!ev.data.keep_seq)) });
    } else if (type === 'bench') {
      const n = Math.max(1, Math.min(100000, ev.data.n | 0));
      const ms = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        core.estimate(plan, false);
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
