// vramplan-core.js: the only module that touches the WebAssembly heap.
//
// It wraps the C functions of wasm/vp_wasm.c. Strings cross the boundary one way: JS
// allocates the inputs, C returns a new string, JS copies it out and frees all of them in
// `finally`. C keeps no pointer after a call. Errors from the core come back as
// {"error":{code,path,message}} JSON text (C never throws); this module turns only
// "the module itself failed" into an exception.
//
// Used by the page's workers (worker.js) and by the Node tests (tests/web/*.test.mjs).
import createVramplan from './vramplan.mjs';

/**
 * Instantiate the core.
 * @param {{wasmBinary?: ArrayBuffer|Uint8Array, locateFile?: (name: string) => string}} [opts]
 */
export async function loadCore(opts = {}) {
  const mod = await createVramplan({
    ...opts,
    print: () => {},
    printErr: () => {},
  });

  /** Calls a char *vpw_*(...) function: strings are copied in, the result copied out, all freed. */
  function call(name, ...args) {
    const fn = mod[`_${name}`];
    if (typeof fn !== 'function') throw new Error(`vramplan: this build has no ${name}`);
    const owned = [];
    let outPtr = 0;
    try {
      const cargs = args.map((a) => {
        if (typeof a !== 'string') return a | 0;
        const len = mod.lengthBytesUTF8(a) + 1;
        const p = mod._malloc(len);
        if (!p) throw new Error('vramplan: out of WebAssembly memory');
        owned.push(p);
        mod.stringToUTF8(a, p, len);
        return p;
      });
      outPtr = fn(...cargs);
      if (!outPtr) throw new Error('vramplan: the core returned nothing (out of memory?)');
      return mod.UTF8ToString(outPtr);
    } finally {
      for (const p of owned) mod._free(p);
      if (outPtr) mod._vpw_free(outPtr);
    }
  }

  return {
    /** plan JSON text in, estimate (or {"error":...}) JSON text out */
    estimate: (planText, pretty = false) => call('vpw_estimate', planText, pretty ? 1 : 0),
    /** vramplan/fit@1: the largest batch | seq | new_tokens that fits (docs/schema/fit.md) */
    fit: (planText, field) => call('vpw_fit', planText, field, 0),
    /** vramplan/sweep@1: peak reserved against batch | seq | new_tokens (docs/schema/sweep.md) */
    sweep: (planText, field, points = 0) => call('vpw_sweep', planText, field, points),
    /** vramplan/recommend@1: setups that fit, fastest first (0: the plan's global batch) */
    recommend: (planText, globalBatch = 0) => call('vpw_recommend', planText, globalBatch, 0),
    /** {"added", "plan"}: instances[index]'s diffusion pipeline with its other components (core/src/pipeline_expand.c) */
    expandPipeline: (planText, index, keepSeq = false) => call('vpw_expand_pipeline', planText, index, keepSeq ? 1 : 0),
    /** which of the planning functions this build has */
    features: () => ({ fit: typeof mod._vpw_fit === 'function', sweep: typeof mod._vpw_sweep === 'function', recommend: typeof mod._vpw_recommend === 'function' }),
    presets: () => mod.UTF8ToString(mod._vpw_presets()),
    version: () => mod.UTF8ToString(mod._vpw_version()),
    /** current size of the WebAssembly memory, for leak checks */
    heapBytes: () => mod.HEAP8.length,
  };
}
