// share.js: the whole setup in the URL fragment, versioned.
//
//   #v1.d.<base64url of deflate-raw(JSON)>   (CompressionStream available)
//   #v1.j.<base64url of JSON>                (fallback where it is not)
//
// The JSON is {"s": setup, "p": pinned setup or absent}, each holding only the fields that
// differ from options.js's DEFAULT_STATE (which is therefore frozen for v1: changing a
// default changes what old links mean, so bump SHARE_VERSION instead; a unit test pins it).
// Reading a link never trusts it: every field is checked against the default's type and
// anything else falls back to the default. An unknown version or a damaged link raises
// ShareError with a sentence for the person.

import { DEFAULT_STATE, CHOICES } from './options.js';

export const SHARE_VERSION = 'v1';
const MAX_LINK_CHARS = 256 * 1024;
const MAX_JSON_BYTES = 2 * 1024 * 1024;

export class ShareError extends Error {}

function toBase64url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ShareError('The link is damaged (it has characters a share link never has).');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  let bin;
  try {
    bin = atob(b64);
  } catch {
    throw new ShareError('The link is damaged (it is cut off or altered).');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipeBytes(bytes, stream, limit) {
  const reader = new Blob([bytes]).stream().pipeThrough(stream).getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw new ShareError('The link holds more data than a setup can.');
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

const canDeflate = typeof CompressionStream === 'function' && typeof DecompressionStream === 'function';

/** The fields of value that differ from def (objects recursively); undefined when none. */
export function diff(def, value) {
  if (def !== null && typeof def === 'object' && !Array.isArray(def)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const out = {};
    for (const k of Object.keys(value)) {
      const d = Object.hasOwn(def, k) ? diff(def[k], value[k]) : value[k];
      if (d !== undefined) out[k] = d;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return JSON.stringify(def) === JSON.stringify(value) ? undefined : value;
}

/** The fragment (without '#') for a setup and an optional pinned setup. */
export async function encodeShare(state, pinned = null) {
  const payload = { s: diff(DEFAULT_STATE, state) || {} };
  if (pinned) payload.p = diff(DEFAULT_STATE, pinned) || {};
  const json = new TextEncoder().encode(JSON.stringify(payload));
  if (canDeflate) {
    const z = await pipeBytes(json, new CompressionStream('deflate-raw'), Infinity);
    return `${SHARE_VERSION}.d.${toBase64url(z)}`;
  }
  return `${SHARE_VERSION}.j.${toBase64url(json)}`;
}

/** Fills a value of the default's shape from untrusted input (path: for CHOICES). */
export function sanitize(def, input, path = '') {
  if (Array.isArray(def)) {
    if (!Array.isArray(input)) return def.slice();
    return input.filter((x) => typeof x === 'string').slice(0, 64).map((x) => x.slice(0, 64));
  }
  if (def !== null && typeof def === 'object') {
    const src = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
    const out = {};
    for (const k of Object.keys(def)) {
      out[k] = sanitize(def[k], Object.hasOwn(src, k) ? src[k] : undefined, path ? `${path}.${k}` : k);
    }
    return out;
  }
  if (typeof def === 'number') {
    // inputs may hold '' or text while being typed: keep strings, the core judges them
    if (typeof input === 'number' && Number.isFinite(input)) return input;
    if (typeof input === 'string' && input.length <= 32) return input;
    return def;
  }
  if (typeof def === 'string') {
    if (typeof input !== 'string') return def;
    return !CHOICES[path] || CHOICES[path].includes(input) ? input : def;
  }
  if (typeof def === 'boolean') return typeof input === 'boolean' ? input : def;
  return def;
}

/**
 * Reads a fragment (with or without '#').
 * @returns {Promise<{state: object, pinned: object|null}>}
 * @throws {ShareError}
 */
export async function decodeShare(fragment) {
  const text = String(fragment || '').replace(/^#/, '');
  if (text.length > MAX_LINK_CHARS) throw new ShareError('The link is too long to be a vramplan setup.');
  const m = /^(v\d+)\.([a-z])\.(.*)$/s.exec(text);
  if (!m) {
    const v = /^(v\d+)\./.exec(text);
    if (v && v[1] !== SHARE_VERSION) {
      throw new ShareError(`This link is from a different version of vramplan (${v[1]}); this page reads ${SHARE_VERSION} links.`);
    }
    throw new ShareError('This is not a vramplan share link (it should start with #v1.).');
  }
  const [, version, codec, body] = m;
  if (version !== SHARE_VERSION) {
    throw new ShareError(`This link is from a different version of vramplan (${version}); this page reads ${SHARE_VERSION} links.`);
  }
  let bytes = fromBase64url(body);
  if (codec === 'd') {
    if (!canDeflate) throw new ShareError('This browser cannot read compressed links (no DecompressionStream).');
    try {
      bytes = await pipeBytes(bytes, new DecompressionStream('deflate-raw'), MAX_JSON_BYTES);
    } catch (e) {
      if (e instanceof ShareError) throw e;
      throw new ShareError('The link is damaged (its data does not decompress).');
    }
  } else if (codec !== 'j') {
    throw new ShareError(`The link uses an encoding this page does not know ("${codec}").`);
  }
  let payload;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ShareError('The link is damaged (its data is not a setup).');
  }
  if (payload === null || typeof payload !== 'object' || typeof payload.s !== 'object' || payload.s === null) {
    throw new ShareError('The link is damaged (its data is not a setup).');
  }
  return {
    state: sanitize(DEFAULT_STATE, payload.s),
    pinned: payload.p && typeof payload.p === 'object' ? sanitize(DEFAULT_STATE, payload.p) : null,
  };
}
