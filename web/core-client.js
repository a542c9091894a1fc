// core-client.js: the main thread's side of worker.js. Promise per request; a worker that
// stops answering is terminated and started again, so the page never hangs on it.

const INIT_TIMEOUT_MS = 60000;
const CALL_TIMEOUT_MS = 10000;
const SEARCH_TIMEOUT_MS = 60000; // fit, sweep and recommend run many estimates

export class CoreClient {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map();
    this.worker = null;
    this.initPromise = null;
  }

  start() {
    this.worker = new Worker(this.url, { type: 'module' });
    this.worker.onmessage = (ev) => {
      const p = this.pending.get(ev.data?.id);
      if (!p) return;
      this.pending.delete(ev.data.id);
      clearTimeout(p.timer);
      if (ev.data.ok) p.resolve(ev.data);
      else p.reject(new Error(ev.data.error || 'the estimator failed'));
    };
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      this.restart(new Error(`the estimator could not start${ev.message ? `: ${ev.message}` : ''}`));
    };
  }

  /** Ends the worker, fails what was waiting, and lets the next call start a fresh one. */
  restart(reason) {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.initPromise = null;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(reason);
    }
    this.pending.clear();
  }

  call(msg, timeoutMs = CALL_TIMEOUT_MS) {
    if (!this.worker) this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.restart(new Error('the estimator stopped answering; it was restarted'));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ ...msg, id });
    });
  }

  /** {presets, version} once the WebAssembly module is ready. */
  init() {
    if (!this.initPromise) {
      this.initPromise = this.call({ type: 'init' }, INIT_TIMEOUT_MS);
      this.initPromise.catch(() => { this.initPromise = null; });
    }
    return this.initPromise;
  }

  /** {text, ms}: text is the estimate JSON or {"error":{...}} */
  async estimate(planText) {
    await this.init();
    return this.call({ type: 'estimate', plan: planText });
  }

  // The searches: a call that runs past timeoutMs ends the worker (it cannot be interrupted
  // otherwise); the next call starts a fresh one.

  /** {text, ms}: vramplan/fit@1 (or {"error"}) for field batch | seq | new_tokens */
  async fit(planText, field, timeoutMs = SEARCH_TIMEOUT_MS) {
    await this.init();
    return this.call({ type: 'fit', plan: planText, field }, timeoutMs);
  }

  /** {text, ms}: vramplan/sweep@1 */
  async sweep(planText, field, points = 0, timeoutMs = SEARCH_TIMEOUT_MS) {
    await this.init();
    return this.call({ type: 'sweep', plan: planText, field, points }, timeoutMs);
  }

  /** {text, ms}: vramplan/recommend@1 (globalBatch 0: the plan's) */
  async recommend(planText, globalBatch = 0, timeoutMs = SEARCH_TIMEOUT_MS) {
    await this.init();
    return this.call({ type: 'recommend', plan: planText, global_batch: globalBatch }, timeoutMs);
  }

  /** {text, ms}: {"added": N, "plan": plan@1} (or {"error"}): instances[index]'s pipeline components added */
  async expandPipeline(planText, index, keepSeq = false) {
    await this.init();
    return this.call({ type: 'expand', plan: planText, index, keep_seq: keepSeq });
  }

  bench(planText, n) {
    return this.call({ type: 'bench', plan: planText, n }, 120000);
  }
}
