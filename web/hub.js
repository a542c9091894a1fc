// hub.js: the model id box. The user types org/name and clicks: the page asks the Hugging Face
// Hub for that model's config.json, in the browser, and reads it as a pasted config. Nothing is
// fetched until the click; the request carries no cookies or token (credentials: 'omit'), so a
// gated or private model is answered 401/403 and the page asks for the config to be pasted.
// Fetched configs are cached in the page's localStorage (per base URL and id).
// The Hub's base URL is configurable (localStorage "vramplan.hub-base", or <html data-hub-base>)
// so that tests use a stand-in server on the page's own origin; the page's CSP allows that origin
// ('self') and https://huggingface.co, nothing else.
export const HUB_DEFAULT = 'https://huggingface.co';
export const BASE_KEY = 'vramplan.hub-base';
const CACHE_PREFIX = 'vramplan.hub-config:';
const MAX_CONFIG_BYTES = 1024 * 1024; // a config.json is a few KiB; refuse anything like a weight file

export class HubError extends Error {
  constructor(message, kind) {
    super(message);
    this.kind = kind; // 'id' | 'gated' | 'missing' | 'network' | 'bad'
  }
}

/** "org/name", also taken from a pasted Hub URL; throws HubError('id') for anything else. */
export function parseModelId(text) {
  let s = String(text ?? '').trim();
  const m = s.match(/^https?:\/\/(?:www\.)?huggingface\.co\/(.*)$/i);
  if (m) s = m[1].split(/[?#]/)[0].split('/').slice(0, 2).join('/');
  s = s.replace(/\/+$/, '');
  const ok = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/.test(s) && !s.includes('..');
  if (!ok) throw new HubError('Type a Hugging Face model id as organization/name, e.g. Qwen/Qwen3-8B.', 'id');
  return s;
}

/** The base URL: http(s) only, no trailing slash; the default when the setting is unusable. */
export function hubBase(setting) {
  const s = String(setting ?? '').trim().replace(/\/+$/, '');
  return /^https?:\/\/[^\s"'<>]+$/i.test(s) ? s : HUB_DEFAULT;
}

export function configUrl(base, id) {
  const [org, name] = id.split('/');
  return `${hubBase(base)}/${encodeURIComponent(org)}/${encodeURIComponent(name)}/resolve/main/config.json`;
}

function cacheKey(base, id) {
  return `${CACHE_PREFIX}${hubBase(base)}/${id}`;
}

/**
 * The config.json text of model `id`: from the cache, else fetched from the Hub.
 * deps: { base, fetch, storage } (storage: a localStorage-like object or null).
 * Resolves to { text, cached }; rejects with HubError.
 */
export async function loadConfig(id, { base = HUB_DEFAULT, fetch: doFetch = globalThis.fetch, storage = null } = {}) {
  const key = cacheKey(base, id);
  try {
    const hit = storage && storage.getItem(key);
    if (hit) return { text: hit, cached: true };
  } catch { /* storage unavailable: fetch */ }
  let res;
  try {
    res = await doFetch(configUrl(base, id), { credentials: 'omit', redirect: 'follow', cache: 'no-store' });
  } catch {
    throw new HubError(`Could not reach the Hub for ${id} (offline, or blocked). Paste its config.json below instead.`, 'network');
  }
  if (res.status === 401 || res.status === 403)
    throw new HubError(`${id} is gated or private: the Hub gives its config.json only to signed-in users who accepted its terms. ` +
      'Open the model page, copy config.json and paste it below.', 'gated');
  if (res.status === 404) throw new HubError(`The Hub has no model ${id} (or it has no config.json).`, 'missing');
  if (!res.ok) throw new HubError(`The Hub answered ${res.status} for ${id}; paste its config.json below instead.`, 'network');
  const text = await res.text();
  if (text.length > MAX_CONFIG_BYTES) throw new HubError(`${id}'s config.json is larger than 1 MiB; that is not a config.`, 'bad');
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new HubError(`${id}'s config.json is not JSON.`, 'bad');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new HubError(`${id}'s config.json is not a JSON object.`, 'bad');
  try {
    if (storage) storage.setItem(key, text);
  } catch { /* a full storage only loses the cache */ }
  return { text, cached: false };
}

/** Wires the box (browser only): the button or Enter fetches, the result fills the config box. */
export function wire({ onConfig }) {
  const input = document.getElementById('hub-id');
  const button = document.getElementById('hub-fetch');
  const msg = document.getElementById('hub-msg');
  if (!input || !button || !msg) return;
  const say = (text, bad) => {
    msg.textContent = text;
    msg.classList.toggle('field-msg', !!bad);
    msg.classList.toggle('hint', !bad);
  };
  const go = async () => {
    let id;
    try {
      id = parseModelId(input.value);
    } catch (e) {
      say(e.message, true);
      return;
    }
    let storage = null;
    try {
      storage = globalThis.localStorage;
    } catch { /* private mode */ }
    let setting = document.documentElement.dataset.hubBase;
    try {
      setting = (storage && storage.getItem(BASE_KEY)) || setting;
    } catch { /* ignore */ }
    button.disabled = true;
    say(`Asking the Hub for ${id}/config.json …`, false);
    try {
      const { text, cached } = await loadConfig(id, { base: hubBase(setting), storage });
      say(`${id}: config.json ${cached ? 'from this page\'s cache' : 'fetched from the Hub'}.`, false);
      onConfig(text);
    } catch (e) {
      say(e instanceof HubError ? e.message : `Could not read ${id}'s config.json.`, true);
    } finally {
      button.disabled = false;
    }
  };
  button.addEventListener('click', go);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      go();
    }
  });
}
