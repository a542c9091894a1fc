// serve-page.js: the Serve mode page (serve.html). Glue only: reads the form into a
// vramplan/plan@1 serve plan, asks the WebAssembly core (worker.js) for the estimate, and shows the
// core's `serving` object: the arithmetic lines, the launch command and the answers. Every number
// comes from the core; text is written with textContent only. The form state travels in the link's
// #hash (base64url JSON of the fields below, nothing else read from it).
import { CoreClient } from './core-client.js';

const $ = (id) => document.getElementById(id);
const core = new CoreClient(new URL('./worker.js', import.meta.url));
const FIELDS = ['serve-model', 'serve-config', 'serve-engine', 'serve-quant', 'serve-gpu', 'serve-tp', 'serve-pp',
  'serve-max-model-len', 'serve-gmu', 'serve-mfs', 'serve-kv', 'serve-seqs', 'serve-mbt', 'serve-target',
  'serve-ngl', 'serve-ctx', 'serve-ub', 'serve-ctk', 'serve-ctv', 'serve-fa'];
let latest = 0;

function fill(select, items, label) {
  select.replaceChildren(...items.map((it) => {
    const o = document.createElement('option');
    o.value = it.id;
    o.textContent = label(it);
    return o;
  }));
}

function readState() {
  const s = {};
  for (const id of FIELDS) {
    const el = $(id);
    s[id] = el.type === 'checkbox' ? el.checked : el.value;
  }
  return s;
}

function writeState(s) {
  for (const id of FIELDS) {
    if (!(id in s)) continue;
    const el = $(id);
    if (el.type === 'checkbox') el.checked = s[id] === true;
    else if (typeof s[id] === 'string' && s[id].length < 200000) el.value = s[id];
  }
}

const num = (v) => (v === '' || v == null ? undefined : Number(v));

/** The plan JSON text, or throws Error with a message for the user. */
export function buildServePlan(s) {
  const engine = s['serve-engine'];
  const w = { mode: 'serve', engine };
  const put = (k, v) => { if (v !== undefined && v !== '' && !Number.isNaN(v)) w[k] = v; };
  put('quantization', s['serve-quant'].trim() || undefined);
  if (engine === 'llamacpp') {
    put('n_gpu_layers', num(s['serve-ngl']));
    put('ctx_size', num(s['serve-ctx']));
    put('n_ubatch', num(s['serve-ub']));
    put('cache_type_k', s['serve-ctk']);
    put('cache_type_v', s['serve-ctv']);
    w.flash_attn = s['serve-fa'] === true;
  } else {
    put('max_model_len', num(s['serve-max-model-len']));
    if (engine === 'vllm') {
      put('gpu_memory_utilization', num(s['serve-gmu']));
      put('max_num_seqs', num(s['serve-seqs']));
      put('max_num_batched_tokens', num(s['serve-mbt']));
    } else {
      put('mem_fraction_static', num(s['serve-mfs']));
    }
    put('kv_cache_dtype', s['serve-kv']);
    put('target_concurrency', num(s['serve-target']));
  }
  let model;
  const pasted = s['serve-config'].trim();
  if (pasted) {
    try { model = { hf_config: JSON.parse(pasted) }; } catch { throw new Error('The pasted config.json is not JSON.'); }
  } else {
    model = { preset: s['serve-model'] };
  }
  const plan = { schema: 'vramplan/plan@1', workload: w, instances: [{ model }], hardware: { gpu: s['serve-gpu'] } };
  if (engine !== 'llamacpp') plan.parallel = { tp: num(s['serve-tp']) || 1, pp: num(s['serve-pp']) || 1 };
  return JSON.stringify(plan);
}

function li(list, text, sub) {
  const item = document.createElement('li');
  item.textContent = text;
  if (sub) {
    const code = document.createElement('code');
    code.textContent = sub;
    item.append(document.createElement('br'), code);
  }
  list.append(item);
}

function show(est) {
  const sv = est.serving || {};
  $('serve-summary').textContent = est.summary || '';
  const lines = $('serve-lines');
  lines.replaceChildren();
  for (const l of sv.arithmetic || []) li(lines, l);
  if (sv.note) li(lines, sv.note);
  $('serve-launch').textContent = sv.launch || '';
  const ans = $('serve-answers');
  ans.replaceChildren();
  const a = sv.answers || {};
  for (const x of a.max_concurrency_at || []) li(ans, `max concurrency at ${x.max_model_len} tokens: ${x.max_concurrency}x`);
  if (a.longest_max_model_len?.value > 0) li(ans, `longest context that starts: ${a.longest_max_model_len.value}`, a.longest_max_model_len.launch);
  if (a.fewest_gpus?.tp > 0) li(ans, `fewest GPUs for ${a.fewest_gpus.target_concurrency} requests at once: TP ${a.fewest_gpus.tp} (${a.fewest_gpus.max_concurrency}x)`, a.fewest_gpus.launch);
  if (a.n_gpu_layers) li(ans, `most layers on this GPU: -ngl ${a.n_gpu_layers.value}`, a.n_gpu_layers.launch);
}

function syncEngine() {
  const e = $('serve-engine').value;
  for (const fs of document.querySelectorAll('[data-engines]')) fs.hidden = !fs.dataset.engines.split(' ').includes(e);
}

async function update() {
  syncEngine();
  const id = ++latest;
  const state = readState();
  history.replaceState(null, '', `#${encodeState(state)}`);
  let text;
  try {
    text = buildServePlan(state);
  } catch (e) {
    $('serve-error').hidden = false;
    $('serve-error').textContent = e.message;
    return;
  }
  const r = await core.estimate(text).catch((e) => ({ text: JSON.stringify({ error: { message: e.message } }) }));
  if (id !== latest) return;
  const est = JSON.parse(r.text);
  $('serve-error').hidden = !est.error;
  if (est.error) {
    $('serve-error').textContent = `${est.error.message}${est.error.path ? ` (${est.error.path})` : ''}`;
    return;
  }
  show(est);
}

function encodeState(s) {
  const bytes = new TextEncoder().encode(JSON.stringify(s));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeState(h) {
  try {
    const bin = atob(h.replace(/-/g, '+').replace(/_/g, '/'));
    const s = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    return s && typeof s === 'object' && !Array.isArray(s) ? s : null;
  } catch {
    return null;
  }
}

async function main() {
  const init = await core.init();
  const presets = JSON.parse(init.presets);
  fill($('serve-model'), presets.models || [], (m) => m.name || m.id);
  fill($('serve-gpu'), presets.gpus || [], (g) => g.name || g.id);
  if ((presets.gpus || []).some((g) => g.id === 'h100-sxm-80gb')) $('serve-gpu').value = 'h100-sxm-80gb';
  if ((presets.models || []).some((m) => m.id === 'llama-3.1-8b')) $('serve-model').value = 'llama-3.1-8b';
  const saved = location.hash.length > 1 ? decodeState(location.hash.slice(1)) : null;
  if (saved) writeState(saved);
  $('serve-form').addEventListener('input', update);
  $('serve-form').addEventListener('change', update);
  $('serve-copy-link').addEventListener('click', () => navigator.clipboard?.writeText(location.href)
    .then(() => { $('serve-status').textContent = 'Link copied.'; }));
  $('serve-copy-plan').addEventListener('click', () => {
    try {
      navigator.clipboard?.writeText(buildServePlan(readState())).then(() => { $('serve-status').textContent = 'Plan copied.'; });
    } catch (e) {
      $('serve-status').textContent = e.message;
    }
  });
  await update();
  window.__vramplanServe = { ready: true, plan: () => buildServePlan(readState()) };
}

if (typeof document !== 'undefined' && document.getElementById('serve-form')) main();
