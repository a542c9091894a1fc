// share.js: the whole setup in the URL fragment, versioned.
//
//   #v2.d.<base64url of deflate-raw(JSON)>   (CompressionStream available)
//   #v2.j.<base64url of JSON>                (fallback where it is not)
//
// The JSON is {"s": setup, "p": pinned setup or absent}, each holding only the fields that
// differ from options.js's DEFAULT_STATE; "instances" is a list with each instance's
// differences from DEFAULT_INSTANCE. Those defaults are therefore part of the v2 format
// (tests/web/fixtures/default-state-v2.json pins them): changing one means a v3.
// #v1. links (one model, before instances and the parallel layout) are still read: against
// the frozen DEFAULT_STATE_V1, then turned into a v2 setup (setup.js migrateV1).
// Reading a link never trusts it: every field is checked against the default's type and
// anything else falls back to the default. An unknown version or a damaged link raises
// ShareError with a sentence for the person.

import { DEFAULT_STATE, DEFAULT_STATE_V1, DEFAULT_INSTANCE, CHOICES, CHOICES_V1, MAX_INSTANCES } from './options.js';
import { migrateV1, normalizeState } from './setup.js';

export const SHARE_VERSION = 'v2';
export const READS_VERSIONS = ['v1', 'v2'];
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

const { instances: _defInstances, ...DEFAULT_REST } = DEFAULT_STATE;

/** A setup as the link stores it: differences from the defaults only. */
export function pack(state) {
  const { instances, ...rest } = state;
  const out = diff(DEFAULT_REST, rest) || {};
  const list = (instances || []).map((x) => diff(DEFAULT_INSTANCE, x) || {});
  if (list.length !== 1 || Object.keys(list[0]).length) out.instances = list;
  return out;
}

/** The fragment (without '#') for a setup and an optional pinned setup. */
export async function encodeShare(state, pinned = null) {
  const payload = { s: pack(state) };
  if (pinned) payload.p = pack(pinned);
  const json = new TextEncoder().encode(JSON.stringify(payload));
  if (canDeflate) {
    const z = await pipeBytes(json, new CompressionStream('deflate-raw'), Infinity);
    return `${SHARE_VERSION}.d.${toBase64url(z)}`;
  }
  return `${SHARE_VERSION}.j.${toBase64url(json)}`;
}

// Number fields whose default is '' (left out of the plan): a number is fine there too.
const EMPTY_NUMBERS = ['workload.frames', 'workload.height', 'workload.width', 'workload.diffusion.text_tokens', 'hardware.cpu_ram_gib', 'parallel.vpp', 'parallel.microbatches',
  'parallel.reduce_bucket_size', 'parallel.allgather_bucket_size', 'parallel.sub_group_size', 'instance.edited_layers'];

/**
 * Fills a value of the default's shape from untrusted input.
 * path: where we are, for the enumerated fields in choices (instance fields: "instance.<key>").
 */
export function sanitize(def, input, path = '', choices = CHOICES) {
  if (Array.isArray(def)) {
    if (def.length && def[0] !== null && typeof def[0] === 'object') {
      // a list of instances: each against the default instance, 1 to MAX_INSTANCES of them
      if (!Array.isArray(input) || !input.length) return def.map((x) => sanitize(x, x, 'instance', choices));
      return input.slice(0, MAX_INSTANCES).map((x) => sanitize(def[0], x, 'instance', choices));
    }
    if (!Array.isArray(input)) return def.slice();
    return input.filter((x) => typeof x === 'string').slice(0, 64).map((x) => x.slice(0, 64));
  }
  if (def !== null && typeof def === 'object') {
    const src = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
    const out = {};
    for (const k of Object.keys(def)) {
      out[k] = sanitize(def[k], Object.hasOwn(src, k) ? src[k] : undefined, path ? `${path}.${k}` : k, choices);
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
    if (typeof input === 'number' && Number.isFinite(input) && EMPTY_NUMBERS.includes(path)) return input;
    if (typeof input !== 'string') return def;
    return !choices[path] || choices[path].includes(input) ? input : def;
  }
  if (typeof def === 'boolean') return typeof input === 'boolean' ? input : def;
  return def;
}

/** A setup from a link's "s" or "p" of a version this page reads. */
function readSetup(version, s) {
  if (version === 'v1') return normalizeState(migrateV1(sanitize(DEFAULT_STATE_V1, s, '', CHOICES_V1)));
  const instances = Object.hasOwn(s, 'instances') ? s.instances : undefined;
  const state = sanitize(DEFAULT_STATE, { ...s, instances });
  return normalizeState(state);
}

/**
 * Reads a fragment (with or without '#').
 * @returns {Promise<{version: string, state: object, pinned: object|null}>}
 * @throws {ShareError}
 */
export async function decodeShare(fragment) {
  const text = String(fragment || '').replace(/^#/, '');
  if (text.length > MAX_LINK_CHARS) throw new ShareError('The link is too long to be a vramplan setup.');
  const m = /^(v\d+)\.([a-z])\.(.*)$/s.exec(text);
  if (!m) {
    const v = /^(v\d+)\./.exec(text);
    if (v && !READS_VERSIONS.includes(v[1])) throw wrongVersion(v[1]);
    throw new ShareError(`This is not a vramplan share link (it should start with #${SHARE_VERSION}.).`);
  }
  const [, version, codec, body] = m;
  if (!READS_VERSIONS.includes(version)) throw wrongVersion(version);
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
  if (payload === null || typeof payload !== 'object' || typeof payload.s !== 'object' || payload.s === null || Array.isArray(payload.s)) {
    throw new ShareError('The link is damaged (its data is not a setup).');
  }
  const p = payload.p && typeof payload.p === 'object' && !Array.isArray(payload.p) ? payload.p : null;
  return {
    version,
    state: readSetup(version, payload.s),
    pinned: p ? readSetup(version, p) : null,
  };
}

function wrongVersion(v) {
  return new ShareError(`This link is from a different version of vramplan (${v}); this page reads ${READS_VERSIONS.join(' and ')} links.`);
}
