// drop.js: files chosen, dropped or pasted into the page: a config.json, a probe file, a plan.
import { $, showFieldMessage } from './fields.js';
import { page } from './store.js';

const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** The file's text, or null (and onError(sentence)) when it is too large to be what it says. */
export async function readFileText(file, what, onError) {
  if (!file) return null;
  if (file.size > MAX_FILE_BYTES) {
    onError(`${what} is ${Math.round(file.size / 1024)} KiB; that is too large to be one.`);
    return null;
  }
  return file.text();
}

async function readFileInto(file, textarea, what) {
  const text = await readFileText(file, what, (m) => showFieldMessage(textarea.id, m));
  if (text === null) return;
  textarea.value = text;
  page.onChange();
}

/** Makes `zone` take dropped files (the first one goes to onFile). */
export function dropZone(zone, onFile) {
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
    if (e.dataTransfer?.files?.length) onFile(e.dataTransfer.files[0]);
  });
}

export function wire() {
  $('hf-file').addEventListener('change', (e) => readFileInto(e.target.files[0], $('hf-config'), 'The config.json'));
  $('probe-file').addEventListener('change', (e) => readFileInto(e.target.files[0], $('probe-text'), 'The probe file'));
  dropZone($('probe-drop'), (f) => readFileInto(f, $('probe-text'), 'The probe file'));
  dropZone($('hf-drop'), (f) => readFileInto(f, $('hf-config'), 'The config.json'));
  // a file dropped anywhere else must not navigate away from the page
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());
}
