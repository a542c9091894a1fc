// plan-files.js: "Load example" and "Open plan JSON". Both go through setup.js planToState:
// the plan fills the whole form, or is refused with a sentence and the form stays as it was.
import * as S from './setup.js';
import { buildPlan } from './plan.js';
import { h } from './view.js';
import { $ } from './fields.js';
import { slimProbe } from './probe.js';
import { rememberProbe } from './cards/gpu.js';
import { store, page, presetType, planInfo } from './store.js';

export async function loadExampleIndex() {
  const list = $('examples-list');
  let items = [];
  try {
    const r = await fetch('examples/index.json');
    if (!r.ok) throw new Error(String(r.status));
    const data = await r.json();
    if (Array.isArray(data)) {
      items = data.filter((x) => x && typeof x.file === 'string' && /^[\w.-]+\.json$/.test(x.file));
    }
  } catch { /* a build without examples: the menu says so */ }
  if (!items.length) {
    list.replaceChildren(h('li', { class: 'muted' }, 'No examples in this build.'));
    return;
  }
  list.replaceChildren(...items.map((x) => h('li', {},
    h('button', { type: 'button', class: 'menu-item', 'data-example': x.file },
      h('span', { class: 'menu-title' }, typeof x.name === 'string' && x.name ? x.name : x.file),
      h('span', { class: 'menu-file muted' }, x.file)))));
}

async function loadExample(file) {
  let text;
  try {
    const r = await fetch(`examples/${encodeURIComponent(file)}`);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    text = await r.text();
  } catch (e) {
    $('plan-info').replaceChildren(h('span', { class: 'bad' }, `The example ${file} could not be loaded (${e.message}).`));
    return;
  }
  $('examples-menu').open = false;
  const res = await openPlanText(text, `example ${file}`);
  if (!res.ok) $('plan-info').replaceChildren(h('span', { class: 'bad' }, res.message));
}

export function showPlanFileError(message) {
  const msg = $('plan-text-msg');
  msg.textContent = message;
  msg.hidden = false;
  $('plan-text').setAttribute('aria-invalid', 'true');
  $('open-plan').open = true;
}

async function openPlanFromPanel(text, label) {
  $('plan-text-msg').hidden = true;
  $('plan-text').removeAttribute('aria-invalid');
  const res = await openPlanText(text, label);
  if (!res.ok) showPlanFileError(res.message);
  else $('open-plan').open = false;
}

/**
 * Reads a plan into the form (examples and "Open plan JSON"). A file the form cannot hold is
 * refused with a sentence; otherwise the form gets it, and a plan error (a layout that does not
 * divide the model, say) is then shown next to its field like any other.
 */
export async function openPlanText(text, label) {
  let plan;
  if (!text || !text.trim()) return { ok: false, message: 'Paste a plan, or upload one.' };
  try {
    plan = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `The plan is not valid JSON: ${e.message}` };
  }
  let res;
  try {
    res = S.planToState(plan, presetType);
  } catch (e) {
    if (e instanceof S.PlanFileError) return { ok: false, message: e.message };
    throw e;
  }
  if (res.invalid.length) {
    // the core says it best when it refuses the file; else name what the form cannot hold
    let coreMsg = '';
    try {
      const est = JSON.parse((await page.core.estimate(text)).text);
      if (est.error) coreMsg = est.error.message;
    } catch { /* fall through */ }
    return {
      ok: false,
      message: coreMsg ? `The plan has an error: ${coreMsg}` : `The form cannot hold ${res.invalid.slice(0, 3).join(', ')} of this plan.`,
    };
  }
  if (S.isObject(plan.hardware) && S.isObject(plan.hardware.probe)) rememberProbe(JSON.stringify(plan.hardware.probe), label);
  page.replaceSetup(res.state);
  const s = store.state;
  const lines = [h('span', {}, `Loaded ${label}${s.name ? `: ${s.name}` : '.'}`)];
  if (s.note) lines.push(h('details', { class: 'note' }, h('summary', {}, 'Note'), h('span', {}, s.note)));
  if (res.dropped.length) lines.push(h('span', { class: 'bad' }, `Not in the form, left out: ${res.dropped.join(', ')}.`));
  $('plan-info').replaceChildren(...lines);
  // the form must estimate what the file estimates; say so if it cannot hold some setting
  // (the setup keeps of a probe file what the estimate reads: compare with that)
  const fileText = S.isObject(plan.hardware) && S.isObject(plan.hardware.probe)
    ? JSON.stringify({ ...plan, hardware: { ...plan.hardware, probe: slimProbe(plan.hardware.probe) } }) : text;
  try {
    const [a, b] = await Promise.all([page.core.estimate(fileText), page.core.estimate(JSON.stringify(buildPlan(s, planInfo())))]);
    if (!JSON.parse(a.text).error && a.text !== b.text) {
      $('plan-info').append(h('span', { class: 'bad' }, 'The form’s estimate differs from the file’s: it cannot hold every setting of this plan.'));
    }
  } catch { /* the estimate itself will show what is wrong */ }
  return { ok: true };
}

/** A plan file chosen or dropped (drop.js read it). */
export async function openPlanFileText(text, name) {
  $('plan-text').value = text;
  await openPlanFromPanel(text, name);
}

export function wire() {
  $('examples-list').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-example]');
    if (b) loadExample(b.dataset.example);
  });
  $('plan-open').addEventListener('click', () => openPlanFromPanel($('plan-text').value, 'the pasted plan'));
}
