// vramplan-core.js: the only module that touches the WebAssembly heap.
//
// It wraps the four C functions of wasm/vp_wasm.c. Strings cross the boundary one way:
// JS allocates the input, C returns a new string, JS copies it out and frees both in
// `finally`. C keeps no pointer after a call. Errors from the core come back as
// {"error":{code,path,message}} JSON text (C never throws); this module turns only
// "the module itself failed" into an exception.
//
// Used by the page's worker (worker.js) and by the Node tests (tests/web/wasm.test.mjs).
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

  /** plan JSON text in, estimate (or {"error":...}) JSON text out */
  function estimate(planText, pretty = false) {
    const len = mod.lengthBytesUTF8(planText) + 1;
    const inPtr = mod._malloc(len);
    if (!inPtr) throw new Error('vramplan: out of WebAssembly memory');
    let outPtr = 0;
    try {
      mod.stringToUTF8(planText, inPtr, len);
      outPtr = mod._vpw_estimate(inPtr, pretty ? 1 : 0);
      if (!outPtr) throw new Error('vramplan: the core returned nothing (out of memory?)');
      return mod.UTF8ToString(outPtr);
    } finally {
      mod._free(inPtr);
      if (outPtr) mod._vpw_free(outPtr);
    }
  }

  return {
    estimate,
    presets: () => mod.UTF8ToString(mod._vpw_presets()),
    version: () => mod.UTF8ToString(mod._vpw_version()),
    /** current size of the WebAssembly memory, for leak checks */
    heapBytes: () => mod.HEAP8.length,
  };
}
