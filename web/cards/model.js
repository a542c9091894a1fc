// cards/model.js: the Model card's own fields for the instance it shows: where the model comes
// from (preset, Hugging Face config.json, custom), precision, optimizer, fine-tuning (LoRA
// targets, QLoRA, adapters), attention, checkpointing, base-weight quantization.
// (The instance tabs, name, role, placement: cards/instances.js.)
import * as O from '../options.js';
import * as S from '../setup.js';
import { h } from '../view.js';
import { hfConfigName } from '../plan.js';
import { $, fillSelect, radio, setRadio, numVal, fieldMsg } from '../fields.js';
import { store, page, inst, modelTypeOf, presetId, presetName, presetModelType, findModel } from '../store.js';

export function build() {
  fillSelect($('precision'), O.PRECISIONS.filter((p) => p.modes.includes('train')));
  fillSelect($('infer-precision'), O.PRECISIONS.filter((p) => p.modes.includes('infer')));
  fillSelect($('optimizer'), O.OPTIMIZERS);
  fillSelect($('attn'), O.ATTN);
  fillSelect($('quant-4bit'), O.QUANT_4BIT);
  fillSelect($('lora-dtype'), O.LORA_DTYPES);
  fillSelect($('base-quant'), O.BASE_QUANT);
  const fields = O.CUSTOM_FIELDS.map((f) => h('div', { class: 'field' },
    h('label', { for: `custom-${f.key}` }, f.label),
    h('input', {
      type: 'number', id: `custom-${f.key}`, min: f.min, step: 1, inputmode: 'numeric', 'data-custom': f.key,
      placeholder: f.optional ? f.optional : null,
    }),
    fieldMsg(`custom-${f.key}`)));
  const mlp = h('select', { id: 'custom-mlp', 'data-custom': 'mlp' });
  fillSelect(mlp, O.CUSTOM_MLP);
  const norm = h('select', { id: 'custom-norm', 'data-custom': 'norm' });
  fillSelect(norm, O.CUSTOM_NORM);
  const check = (key, id, label) => h('div', { class: 'field check' },
    h('label', {}, h('input', { type: 'checkbox', id, 'data-custom': key }), ` ${label}`), fieldMsg(id));
  $('custom-fields').replaceChildren(
    h('div', { class: 'field wide' }, h('label', { for: 'custom-name' }, 'Model name (optional)'),
      h('input', { type: 'text', id: 'custom-name', maxlength: 60, spellcheck: 'false', 'data-custom': 'name' }), fieldMsg('custom-name')),
    ...fields,
    h('div', { class: 'field' }, h('label', { for: 'custom-mlp' }, 'MLP'), mlp, fieldMsg('custom-mlp')),
    h('div', { class: 'field' }, h('label', { for: 'custom-norm' }, 'Norm'), norm, fieldMsg('custom-norm')),
    check('tie_embeddings', 'custom-tie', 'Tied embeddings'),
    check('attn_bias', 'custom-attn-bias', 'Attention bias'),
    check('mlp_bias', 'custom-mlp-bias', 'MLP bias'));
}

/** The preset list, filtered by the search words. */
export function fillPresetList() {
  const q = $('preset-search').value.trim().toLowerCase();
  const words = q.split(/\s+/).filter(Boolean);
  const list = store.presets.models.filter((m) => {
    const hay = `${presetId(m)} ${presetName(m)} ${presetModelType(m)}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const sel = $('preset');
  sel.replaceChildren(...list.map((m) => h('option', { value: presetId(m) },
    presetName(m) !== presetId(m) ? `${presetName(m)} (${presetId(m)})` : presetId(m))));
  if (list.some((m) => presetId(m) === inst().model.preset)) sel.value = inst().model.preset;
  $('preset-search-msg').hidden = list.length > 0;
  $('preset-search-msg').textContent = list.length ? '' : 'No preset matches. Try fewer words, or paste a config.json.';
}

/** LoRA target checkboxes: the family's modules (plus any the setup names besides). */
export function fillTargets(reset = false) {
  const x = inst();
  const family = S.loraTargetsFor(modelTypeOf());
  if (reset || !x.lora.targets.length) x.lora.targets = family.slice();
  const names = family.concat(x.lora.targets.filter((t) => !family.includes(t)));
  const list = $('lora-targets-list');
  const have = [...list.querySelectorAll('input')].map((i) => i.value).join('\u0000');
  if (have !== names.join('\u0000')) {
    list.replaceChildren(...names.map((n) => h('label', {},
      h('input', { type: 'checkbox', value: n, 'data-target': n }), ' ', h('code', {}, n))));
  }
  for (const i of list.querySelectorAll('input')) i.checked = x.lora.targets.includes(i.value);
}

export function read(x) {
  x.model.source = radio('model-source') || x.model.source;
  x.model.preset = $('preset').value || x.model.preset;
  x.model.hf = $('hf-config').value;
  for (const el of document.querySelectorAll('[data-custom]')) {
    const k = el.dataset.custom;
    x.model.custom[k] = el.type === 'checkbox' ? el.checked : el.type === 'number' ? numVal(el) : el.value;
  }
  // a precision picked here is the person's own, no longer the framework's default
  if ($('precision').value !== x.precision) x.precision_framework = false;
  x.precision = $('precision').value;
  x.infer_precision = $('infer-precision').value;
  x.optimizer = $('optimizer').value;
  x.finetune = radio('finetune') || x.finetune;
  x.attn = $('attn').value;
  x.grad_ckpt = $('grad-ckpt').checked;
  x.quant = $('base-quant').value;
  x.adapter_dim = numVal($('adapter-dim'));
  x.lora.r = numVal($('lora-r'));
  x.lora.alpha = numVal($('lora-alpha'));
  x.lora.dropout = numVal($('lora-dropout'));
  x.lora.quant = $('quant-4bit').value;
  x.lora.dtype = $('lora-dtype').value;
  x.lora.double_quant = $('double-quant').checked;
  const t = [...document.querySelectorAll('#lora-targets-list input')];
  if (t.length) x.lora.targets = t.filter((i) => i.checked).map((i) => i.value);
}

export function write(x) {
  setRadio('model-source', x.model.source);
  $('hf-config').value = x.model.hf;
  for (const el of document.querySelectorAll('[data-custom]')) {
    const v = x.model.custom[el.dataset.custom];
    if (el.type === 'checkbox') el.checked = !!v;
    else el.value = String(v ?? '');
  }
  $('precision').value = x.precision;
  $('infer-precision').value = x.infer_precision;
  $('optimizer').value = x.optimizer;
  setRadio('finetune', x.finetune);
  $('attn').value = x.attn;
  $('grad-ckpt').checked = !!x.grad_ckpt;
  $('base-quant').value = x.quant;
  $('adapter-dim').value = String(x.adapter_dim);
  $('lora-r').value = String(x.lora.r);
  $('lora-alpha').value = String(x.lora.alpha);
  $('lora-dropout').value = String(x.lora.dropout);
  $('quant-4bit').value = x.lora.quant;
  $('lora-dtype').value = x.lora.dtype ?? 'fp32';
  $('double-quant').checked = !!x.lora.double_quant;
  fillPresetList();
  fillTargets();
}

/** The data-show keys this card decides. */
export function showVals(x, mode) {
  const baseQuant = mode === 'infer' || ['lora', 'adapter', 'frozen'].includes(x.finetune);
  return {
    'model-source': x.model.source,
    finetune: x.finetune,
    learns: S.trains(x.role) && x.finetune !== 'frozen' ? 'yes' : 'no',
    basequant: baseQuant ? 'yes' : 'no',
    dq: (mode === 'train' && x.finetune === 'qlora') || (baseQuant && (x.quant === 'nf4' || x.quant === 'fp4')) ? 'yes' : 'no',
  };
}

/** The hint lines: which model the preset or config is, every k-th block checkpointed. */
export function sync(x) {
  let info = '';
  const m = x.model;
  if (m.source === 'preset') {
    const p = findModel(m.preset);
    if (p) info = [presetName(p), presetModelType(p)].filter(Boolean).join(' · ');
  } else if (m.source === 'hf') {
    try {
      const name = hfConfigName(JSON.parse(m.hf));
      if (name) info = `Model: ${name}`;
    } catch { /* shown as a field message by the estimate */ }
  }
  $(m.source === 'hf' ? 'hf-config-info' : 'preset-info').textContent = info;
  $('gc-every-note').textContent = x.grad_ckpt && Number(x.gc_every) > 1 ? ` (every ${x.gc_every} blocks)` : '';
}

/** Typing in the search filters the list and picks its first model when none is picked. */
function onSearch() {
  fillPresetList();
  const sel = $('preset');
  if (sel.options.length && !sel.value) {
    sel.value = sel.options[0].value;
    page.onChange();
  }
}

export function wire() {
  $('preset-search').addEventListener('input', onSearch);
  $('preset-search').addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter') {
      e.preventDefault();
      $('preset').focus();
    }
  });
}

/** A config.json dropped or chosen anywhere: it becomes the shown model's config. */
export function takeConfigText(text) {
  setRadio('model-source', 'hf');
  $('hf-config').value = text;
  page.onChange();
}
