// cards/instances.js: the model instances of a setup (policy, reference, teacher, EMA, ...):
// the tabs that pick which one the Model card shows, its name, role and "runs through the
// weights of", add / duplicate / remove, and "Activations and placement".
import * as O from '../options.js';
import * as S from '../setup.js';
import { h } from '../view.js';
import { $, fillSelect, numVal } from '../fields.js';
import { store, page, inst, gpuCount } from '../store.js';

export function build() {
  fillSelect($('role'), O.ROLES);
  fillSelect($('add-role'), O.ROLES.filter((r) => r.value !== 'trained').concat(O.ROLES.filter((r) => r.value === 'trained')), 'reference');
  fillSelect($('activations'), O.ACTIVATIONS);
  fillSelect($('placement'), O.PLACEMENTS);
  fillSelect($('after-use'), O.AFTER_USE);
  fillSelect($('group-offload'), O.GROUP_OFFLOAD);
}

/** The instance tabs (one radio per model instance). */
let barKey = '';
export function renderInstanceBar() {
  const { state, active } = store;
  const names = S.instanceNames(state);
  const key = JSON.stringify([names, state.instances.map((x) => x.role)]);
  const bar = $('instance-bar');
  if (key !== barKey) {
    barKey = key;
    const hadFocus = bar.contains(document.activeElement);
    const roleLabel = (r) => (r === 'functional_copy' ? 'functional copy' : r);
    bar.replaceChildren(...state.instances.map((x, i) => h('label', { 'data-instance': i },
      h('input', { type: 'radio', name: 'instance', value: i }),
      ' ', h('span', { class: 'iname' }, names[i]), h('span', { class: 'irole' }, ` · ${roleLabel(x.role)}`))));
    if (hadFocus) bar.querySelector(`input[value="${active}"]`)?.focus();
  }
  for (const r of bar.querySelectorAll('input')) r.checked = Number(r.value) === active;
  const n = state.instances.length;
  $('model-fieldset').querySelector('legend').textContent = n > 1 ? `Models (${n})` : 'Model';
  $('add-instance').disabled = n >= O.MAX_INSTANCES;
  $('dup-instance').disabled = n >= O.MAX_INSTANCES;
  $('remove-instance').textContent = `Remove “${names[active]}”`;
  $('dup-instance').textContent = n > 1 ? `Duplicate “${names[active]}”` : 'Duplicate';
  $('instance-name').placeholder = names[active];
}

/** "Runs through the weights of": its own model, or another instance that has its own. */
let sharesKey = '';
export function fillShares() {
  const { state, active } = store;
  const names = S.instanceNames(state);
  const items = [{ value: '-1', label: 'its own model' }];
  state.instances.forEach((x, j) => {
    if (j !== active && S.sharesTarget(state, j) < 0) items.push({ value: String(j), label: `“${names[j]}” (same weights, e.g. adapters off)` });
  });
  const key = JSON.stringify(items);
  if (key !== sharesKey) {
    sharesKey = key;
    fillSelect($('shares'), items);
  }
  const want = String(S.sharesTarget(state, active));
  $('shares').value = items.some((it) => it.value === want) ? want : '-1';
}

/** GPU choices for a placement: the GPUs of a node (and the set one, even if out of range). */
export function fillPlacementDevices() {
  const n = Math.min(gpuCount(), 256);
  const cur = Number(inst().device);
  const top = Math.max(n - 1, Number.isInteger(cur) && cur >= 0 && cur < 1024 ? cur : 0);
  const items = [];
  for (let i = 0; i <= top; i++) items.push({ value: String(i), label: i < n ? `GPU ${i}` : `GPU ${i} (not in this node)` });
  fillSelect($('placement-device'), items, String(Number.isInteger(cur) ? cur : 0));
}

export function read(x) {
  x.name = $('instance-name').value;
  if ($('shares').value !== '') x.shares = Number($('shares').value);
  x.activations = $('activations').value;
  x.passes = numVal($('passes'));
  x.logprobs_fp32 = $('logprobs').checked;
  x.autocast_cache = $('autocast-cache').checked;
  x.after_use = $('after-use').value;
  x.group_offload = $('group-offload').value;
  x.autocast16 = $('dit-autocast').checked;
  x.group_blocks = numVal($('group-blocks'));
  x.group_stream = $('group-stream').checked;
  x.edited_layers = numVal($('edited-layers'));
  x.placement = $('placement').value;
  if ($('placement-device').value !== '') x.device = Number($('placement-device').value);
  x.pinned = $('pinned').checked;
}

export function write(x) {
  $('instance-name').value = x.name;
  $('role').value = x.role;
  $('activations').value = x.activations;
  $('passes').value = String(x.passes);
  $('logprobs').checked = !!x.logprobs_fp32;
  $('autocast-cache').checked = x.autocast_cache !== false;
  $('after-use').value = x.after_use || 'stay';
  $('group-offload').value = x.group_offload || 'none';
  $('dit-autocast').checked = !!x.autocast16;
  $('group-blocks').value = String(x.group_blocks ?? 1);
  $('group-stream').checked = !!x.group_stream;
  $('edited-layers').value = String(x.edited_layers ?? '');
  $('placement').value = x.placement;
  $('pinned').checked = !!x.pinned;
  fillPlacementDevices();
  renderInstanceBar();
  fillShares();
}

/** The data-show keys this card decides. */
export function showVals(x) {
  const { state, active } = store;
  const multi = state.instances.length > 1;
  return {
    multi: multi ? 'yes' : 'no',
    // a name to type: for each of several models, and for one pasted config (its class name
    // is all a config from the hub says about itself)
    named: multi || (x.model.source === 'hf' && S.sharesTarget(state, active) < 0) ? 'yes' : 'no',
    own: S.sharesTarget(state, active) < 0 ? 'yes' : 'no',
    ckpt: x.activations === 'train' || x.activations === 'keep_graph' || x.grad_ckpt ? 'yes' : 'no',
    activations: x.activations,
    placement: x.placement,
    role: x.role,
    // autocast runs: training in a mixed precision, or inference with fp32 weights under autocast
    autocast: (store.state.workload.mode === 'train' ? x.precision : x.infer_precision).startsWith('amp_') ? 'yes' : 'no',
  };
}

/** The summary line of "Activations and placement". */
export function sync(x, mode) {
  const act = O.ACTIVATIONS.find((a) => a.value === S.effectiveActivations(x, mode));
  const pl = x.placement === 'sharded' ? 'sharded' : x.placement === 'gpu' ? `GPU ${x.device}`
    : x.placement === 'cpu' ? 'CPU RAM' : `CPU → GPU ${x.device}`;
  $('instance-more-summary').textContent = `· ${act ? act.value.replace('_', ' ') : ''} · ${pl}`;
}

function selectInstance(i) {
  if (i === store.active || i < 0 || i >= store.state.instances.length) return;
  store.active = i;
  $('preset-search').value = '';
  page.writeForm();
  page.scheduleEstimate(0); // shows this instance's field errors next to its fields
}

function focusActiveTab() {
  document.querySelector(`#instance-bar input[value="${store.active}"]`)?.focus();
}

function afterInstancesChanged(message) {
  page.hideApplied();
  $('preset-search').value = '';
  page.writeForm();
  page.scheduleEstimate(0);
  page.scheduleLinkUpdate();
  page.setStatus(message);
  focusActiveTab();
}

function addInstance() {
  const i = S.addInstance(store.state, $('add-role').value);
  if (i < 0) {
    page.setStatus(`A plan holds at most ${O.MAX_INSTANCES} models.`);
    return;
  }
  store.active = i;
  afterInstancesChanged(`Added “${S.instanceNames(store.state)[i]}”.`);
}

function duplicateInstance() {
  const i = S.duplicateInstance(store.state, store.active);
  if (i < 0) {
    page.setStatus(`A plan holds at most ${O.MAX_INSTANCES} models.`);
    return;
  }
  store.active = i;
  afterInstancesChanged(`Added “${S.instanceNames(store.state)[i]}”, a copy.`);
}

function removeInstance() {
  const name = S.instanceNames(store.state)[store.active];
  if (!S.removeInstance(store.state, store.active)) return;
  store.active = Math.max(0, store.active - 1);
  afterInstancesChanged(`Removed “${name}”.`);
}

function onRoleChange() {
  S.setRole(inst(), $('role').value);
  page.hideApplied();
  page.writeForm();
  page.scheduleEstimate();
  page.scheduleLinkUpdate();
}

export function wire() {
  $('instance-bar').addEventListener('change', (e) => {
    if (e.target.name === 'instance') selectInstance(Number(e.target.value));
  });
  $('role').addEventListener('change', onRoleChange);
  $('add-instance').addEventListener('click', addInstance);
  $('dup-instance').addEventListener('click', duplicateInstance);
  $('remove-instance').addEventListener('click', removeInstance);
}
