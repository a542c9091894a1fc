// cards/parallel.js: the Parallelism card: GPUs per node and nodes, framework, dp / tp / pp,
// ZeRO stage or FSDP strategy, sequence parallelism, offloads, and "More". Its inputs are
// bound to the setup by data-bind (fields.js readBound / writeBound).
import * as O from '../options.js';
import { $, fillSelect } from '../fields.js';

export function build() {
  fillSelect($('par-framework'), O.FRAMEWORKS);
  fillSelect($('par-zero'), O.ZERO_STAGES);
  fillSelect($('par-fsdp'), O.FSDP_STRATEGIES);
}

export function showVals(s) {
  return { framework: s.parallel.framework };
}
