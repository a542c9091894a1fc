// cards/parallel.js: the Parallelism card: GPUs per node and nodes, framework, dp / tp / pp,
// ZeRO stage or FSDP strategy, sequence parallelism, offloads, and "More". Its inputs are
// bound to the setup by data-bind (fields.js readBound / writeBound).
import * as O from '../options.js';
import * as S from '../setup.js';
import { $, fillSelect } from '../fields.js';
import { store, page } from '../store.js';

export function build() {
  fillSelect($('par-framework'), O.FRAMEWORKS);
  fillSelect($('par-zero'), O.ZERO_STAGES);
  fillSelect($('par-fsdp'), O.FSDP_STRATEGIES);
  fillSelect($('par-fsdp-version'), O.FSDP_VERSIONS);
  for (const id of ['par-fsdp-param-dtype', 'par-fsdp-output-dtype', 'par-fsdp-buffer-dtype']) fillSelect($(id), O.MP_DTYPES);
  fillSelect($('par-fsdp-reduce-dtype'), O.REDUCE_DTYPES);
  fillSelect($('par-grad-accum-dtype'), O.REDUCE_DTYPES);
}

export function showVals(s) {
  return { framework: s.parallel.framework };
}

let noteFor = null; // the setup the framework note was written for

export function write(s) {
  if (s !== noteFor) $('framework-note').textContent = '';
}

/** A framework brings its own bf16 precision mode (setup.js switchFramework), and says so. */
function onFrameworkChange() {
  const note = S.switchFramework(store.state, $('par-framework').value);
  noteFor = store.state;
  $('framework-note').textContent = note;
  page.hideApplied();
  page.writeForm();
  page.scheduleEstimate();
  page.scheduleLinkUpdate();
}

export function wire() {
  $('par-framework').addEventListener('change', onFrameworkChange);
}
