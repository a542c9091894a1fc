// drop.js: files chosen or dropped: a probe file, a plan or a config.json goes where it belongs,
// whichever box it was dropped on (a probe is known by its "schema", a plan too, a config by its
// "model_type"). A drop zone only decides where a file of no known kind is reported.
import { $, showFieldMessage } from './fields.js';
import { page } from './store.js';
import { fmtBytes } from './view.js';
import { fileKind, looksLikeProbe } from './probe.js';
import * as gpu from './cards/gpu.js';
import * as model from './cards/model.js';
import * as planFiles from './plan-files.js';

const MAX_FILE_BYTES = 8 * 1024 * 1024;

/**
 * A file chosen or dropped; `where` is the box: 'probe', 'hf' (config.json), 'plan' or 'page'.
 * Returns a promise that settles when the file has been taken (or refused).
 */
export function takeFile(file, where) {
  if (!file) return Promise.resolve();
  if (where === 'probe') gpu.beginProbeFile(file); // the old message goes at once, progress shows
  return route(file, where);
}

async function route(file, where) {
  const name = String(file.name || 'the file').slice(0, 80);
  let head = '';
  try {
    head = await file.slice(0, 4096).text();
  } catch { /* read it whole below */ }
  if (where === 'probe' || looksLikeProbe(head)) return gpu.takeProbeFile(file);
  if (file.size > MAX_FILE_BYTES) {
    const message = `${name} is ${fmtBytes(file.size)}; that is too large to be a plan or a config.json.`;
    if (where === 'plan') planFiles.showPlanFileError(message);
    else if (where === 'hf') showFieldMessage('hf-config', message);
    else page.showBanner(message);
    return undefined;
  }
  const text = await file.text();
  let doc = null;
  try {
    doc = JSON.parse(text);
  } catch { /* the box it was dropped on reports it */ }
  const kind = fileKind(doc);
  if (kind === 'probe') return gpu.takeProbeText(text, name);
  if (kind === 'plan' || (!kind && where === 'plan')) return planFiles.openPlanFileText(text, name);
  if (kind === 'config' || where === 'hf') return model.takeConfigText(text);
  page.showBanner(`${name} is not a file this page reads: drop a vramplan-probe file, a plan (vramplan/plan@1) or a Hugging Face config.json.`);
  return undefined;
}

/** Makes `zone` take dropped files (the first one) as `where`. */
export function dropZone(zone, where) {
  for (const ev of ['dragenter', 'dragover']) {
    zone.addEventListener(ev, (e) => {
      e.preventDefault();
      zone.classList.add('over');
    });
  }
  for (const ev of ['dragleave', 'drop']) zone.addEventListener(ev, () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    e.stopPropagation();
    if (e.dataTransfer?.files?.length) takeFile(e.dataTransfer.files[0], where);
  });
}

export function wire() {
  for (const [input, where] of [['probe-file', 'probe'], ['hf-file', 'hf'], ['plan-file', 'plan']]) {
    $(input).addEventListener('change', (e) => {
      const file = e.target.files[0];
      e.target.value = ''; // the same file chosen again is read again
      takeFile(file, where);
    });
  }
  dropZone($('probe-drop'), 'probe');
  dropZone($('hf-drop'), 'hf');
  dropZone($('plan-drop'), 'plan');
  // anywhere else on the page: by what the file is (and never navigate away to it)
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    if (e.dataTransfer?.files?.length) takeFile(e.dataTransfer.files[0], 'page');
  });
}
