// fields.js: small helpers every card uses to read and write its inputs, and to put a
// message next to a field (or on its card when the field is hidden for this setup).
import { h } from './view.js';

export const $ = (id) => document.getElementById(id);

export function fillSelect(sel, items, value) {
  sel.replaceChildren(...items.map((it) => h('option', { value: it.value }, it.label)));
  if (value !== undefined) sel.value = value;
}

export const radio = (name) => document.querySelector(`input[name="${name}"]:checked`)?.value;
export const setRadio = (name, v) => {
  const el = document.querySelector(`input[name="${name}"][value="${CSS.escape(String(v))}"]`);
  if (el) el.checked = true;
};

/** A number input's value: a number when it is one, else the text ('' while empty). */
export const numVal = (el) => (el.value !== '' && String(Number(el.value)) === el.value ? Number(el.value) : el.value);

export const getPath = (o, path) => path.split('.').reduce((a, k) => (a == null ? a : a[k]), o);
export const setPath = (o, path, v) => {
  const keys = path.split('.');
  const last = keys.pop();
  keys.reduce((a, k) => a[k], o)[last] = v;
};

/** The hidden message paragraph under a field ("<id>-msg"). */
export const fieldMsg = (id) => h('p', { id: `${id}-msg`, class: 'field-msg', role: 'alert', hidden: true });

export function clearFieldMessages() {
  for (const el of document.querySelectorAll('.field-msg:not(#preset-search-msg)')) {
    el.hidden = true;
    el.textContent = '';
  }
  for (const el of document.querySelectorAll('#setup [aria-invalid]')) el.removeAttribute('aria-invalid');
  for (const el of document.querySelectorAll('#instance-bar .invalid')) el.classList.remove('invalid');
}

/** Shows a message under field `id`; a field hidden for this setup gets it on its card. */
export function showFieldMessage(id, message) {
  const msg = id && $(`${id}-msg`);
  if (!msg) return false;
  if (msg.parentElement.closest('[hidden]')) {
    const card = msg.closest('fieldset.card');
    return card && card.id !== id ? showFieldMessage(card.id, message) : false;
  }
  msg.textContent = message;
  msg.hidden = false;
  const details = msg.closest('details');
  if (details) details.open = true;
  const field = $(id);
  if (field && field.tagName !== 'FIELDSET') field.setAttribute('aria-invalid', 'true');
  return true;
}

/**
 * Shows the fields that apply: data-show="key=value,value" (several conditions joined by ";"
 * must all hold).
 */
export function applyShowRules(vals) {
  for (const el of document.querySelectorAll('[data-show]')) {
    el.hidden = !el.dataset.show.split(';').every((rule) => {
      const [k, v] = rule.split('=');
      return v.split(',').includes(vals[k]);
    });
  }
}

/** Inputs with data-bind="path.in.setup" (the Parallelism card, nodes, CPU RAM) → the setup. */
export function readBound(s) {
  for (const el of document.querySelectorAll('#setup [data-bind]')) {
    let v;
    if (el.type === 'checkbox') v = el.checked;
    else if (el.dataset.num !== undefined) v = Number(el.value);
    else if (el.type === 'number') v = numVal(el);
    else v = el.value;
    setPath(s, el.dataset.bind, v);
  }
}

export function writeBound(s) {
  for (const el of document.querySelectorAll('#setup [data-bind]')) {
    const v = getPath(s, el.dataset.bind);
    if (el.type === 'checkbox') el.checked = !!v;
    else el.value = String(v ?? '');
  }
}
