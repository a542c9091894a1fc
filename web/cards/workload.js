// cards/workload.js: the Workload card: train or inference, micro-batch, sequence length,
// gradient accumulation, prompt and generated tokens, KV-cache dtype, image size (ViT); for a
// diffusion pipeline the video size and the pipeline's options (their inputs are data-bind fields).
import * as O from '../options.js';
import * as S from '../setup.js';
import { $, fillSelect, radio, setRadio, numVal } from '../fields.js';
import { store, page, modelTypeOf, isPipelinePreset } from '../store.js';

const NUMBERS = [['batch', 'batch'], ['seq', 'seq'], ['grad_accum', 'grad-accum'], ['prompt', 'prompt'],
  ['new_tokens', 'new-tokens'], ['image_size', 'image-size']];

export function build() {
  fillSelect($('kv-dtype'), O.KV_DTYPES);
  fillSelect($('diff-offload'), O.DIFFUSION_OFFLOAD);
  fillSelect($('diff-diffusers'), O.DIFFUSERS_RELEASES);
}

export function read(s) {
  const w = s.workload;
  w.mode = radio('mode');
  for (const [k, id] of NUMBERS) w[k] = numVal($(id));
  w.kv_dtype = $('kv-dtype').value;
}

let noteFor = null; // the setup the mode note was written for: another one (a link, a plan, Undo) drops it

export function write(s) {
  if (s !== noteFor) $('mode-note').textContent = '';
  const w = s.workload;
  setRadio('mode', w.mode);
  for (const [k, id] of NUMBERS) $(id).value = String(w[k]);
  $('kv-dtype').value = w.kv_dtype;
}

export function showVals(s) {
  return {
    mode: s.workload.mode,
    vit: s.instances.some((_, i) => modelTypeOf(i, s) === 'vit') ? 'yes' : 'no',
    diffusion: S.isDiffusionSetup(s, isPipelinePreset) ? 'yes' : 'no',
  };
}

/** Train ↔ inference: what carries over is carried, and the card says what changed. */
function onModeChange(mode) {
  const notes = S.switchMode(store.state, mode, isPipelinePreset);
  noteFor = store.state;
  $('mode-note').textContent = notes.join(' ');
  page.hideApplied();
  page.writeForm();
  page.scheduleEstimate();
  page.scheduleLinkUpdate();
  page.expandPipelines(); // a pipeline's text encoders and VAE run in inference: the core adds them
}

export function wire() {
  for (const r of document.querySelectorAll('input[name="mode"]')) {
    r.addEventListener('change', () => onModeChange(r.value));
  }
}
