// cards/workload.js: the Workload card: train or inference, micro-batch, sequence length,
// gradient accumulation, prompt and generated tokens, KV-cache dtype, image size (ViT).
import * as O from '../options.js';
import { $, fillSelect, radio, setRadio, numVal } from '../fields.js';
import { store, modelTypeOf } from '../store.js';

const NUMBERS = [['batch', 'batch'], ['seq', 'seq'], ['grad_accum', 'grad-accum'], ['prompt', 'prompt'],
  ['new_tokens', 'new-tokens'], ['image_size', 'image-size']];

export function build() {
  fillSelect($('kv-dtype'), O.KV_DTYPES);
}

export function read(s) {
  const w = s.workload;
  w.mode = radio('mode');
  for (const [k, id] of NUMBERS) w[k] = numVal($(id));
  w.kv_dtype = $('kv-dtype').value;
}

export function write(s) {
  const w = s.workload;
  setRadio('mode', w.mode);
  for (const [k, id] of NUMBERS) $(id).value = String(w[k]);
  $('kv-dtype').value = w.kv_dtype;
}

export function showVals(s) {
  return {
    mode: s.workload.mode,
    vit: s.instances.some((_, i) => modelTypeOf(i, s) === 'vit') ? 'yes' : 'no',
  };
}
