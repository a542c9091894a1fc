// probe.js: what the page reads from a vramplan/gpu-probe@1 file (docs/schema/gpu-probe.md),
// for display only. No DOM; the core reads the probe itself for the estimate.
import { fmtBytes, gpuDisplayName } from './view.js';

export const PROBE_SCHEMA = 'vramplan/gpu-probe@1';

/** What a probe file says about where it came from, or null when the text is not JSON. */
export function describeProbe(text) {
  let probe;
  try {
    probe = JSON.parse(text);
  } catch {
    return null;
  }
  if (!probe || typeof probe !== 'object' || Array.isArray(probe)) return null;
  const str = (v) => (typeof v === 'string' ? v : '');
  const host = probe.host && typeof probe.host === 'object' ? probe.host : {};
  return {
    probe,
    gpus: Array.isArray(probe.devices) ? probe.devices : [],
    host: str(host.hostname),
    driver: str(host.driver_version),
    time: str(probe.time),
    warnings: Array.isArray(probe.warnings) ? probe.warnings.filter((w) => typeof w === 'string') : [],
  };
}

/** "node gpu-07" or, for a redacted file, "the node probed 2026-11-22T10:49:55Z (driver 580.159.04)" */
export function probeNode(info) {
  if (info.host) return `node ${info.host}`;
  const bits = [info.time && `probed ${info.time}`, info.driver && `driver ${info.driver}`].filter(Boolean);
  return bits.length ? `the node ${bits.join(', ')}` : 'an unnamed node';
}

export function probeGpuLabel(g, i) {
  const idx = Number.isInteger(g?.index) ? g.index : i;
  const parts = [`GPU ${idx}`, typeof g?.name === 'string' ? gpuDisplayName(g.name) : 'GPU'];
  if (typeof g?.pci_bus_id === 'string') parts.push(g.pci_bus_id);
  const free = g?.memory?.free_bytes;
  if (typeof free === 'number' && Number.isFinite(free)) parts.push(`${fmtBytes(free)} free`);
  return parts.join(' · ');
}

/** A probe file larger than this is not one: 64 GPUs (the probe's most) take about 200 KiB. */
export const MAX_PROBE_BYTES = 1024 * 1024;

const pick = (obj, keys) => {
  const out = {};
  for (const k of keys) if (obj && typeof obj === 'object' && Object.hasOwn(obj, k)) out[k] = obj[k];
  return out;
};

/**
 * The part of a probe file the estimate reads (core/src/gpu.c): per GPU its name, total and free
 * memory, CUDA context size, compute capability and bf16/fp8 support, MIG instance sizes when MIG
 * is on; the GPU count is the list's length. Host name, PCI ids, UUIDs, serials, the driver and
 * the rest stay out of links and the saved setup. Values are copied as they are, so the core
 * judges a bad one exactly as it would in the whole file.
 */
export function slimProbe(probe) {
  if (!probe || typeof probe !== 'object' || Array.isArray(probe)) return probe;
  const out = pick(probe, ['schema']);
  if (Object.hasOwn(probe, 'error')) out.error = pick(probe.error, ['code', 'message']);
  if (!Object.hasOwn(probe, 'devices')) return out;
  if (!Array.isArray(probe.devices)) {
    out.devices = probe.devices;
    return out;
  }
  out.devices = probe.devices.map((d) => {
    if (!d || typeof d !== 'object' || Array.isArray(d)) return d;
    const g = pick(d, ['index', 'name', 'compute_capability']);
    if (Object.hasOwn(d, 'memory')) {
      g.memory = d.memory && typeof d.memory === 'object' && !Array.isArray(d.memory)
        ? pick(d.memory, ['total_bytes', 'free_bytes', 'context_bytes']) : d.memory;
    }
    if (Object.hasOwn(d, 'supports')) {
      g.supports = d.supports && typeof d.supports === 'object' ? pick(d.supports, ['bf16', 'fp8']) : d.supports;
    }
    if (Object.hasOwn(d, 'mig')) {
      const m = d.mig;
      if (m && typeof m === 'object' && !Array.isArray(m)) {
        g.mig = pick(m, ['enabled']);
        if (m.enabled === true && Object.hasOwn(m, 'instances')) {
          g.mig.instances = Array.isArray(m.instances)
            ? m.instances.map((x) => (x && typeof x === 'object' && !Array.isArray(x) ? pick(x, ['total_bytes', 'free_bytes']) : x))
            : m.instances;
        }
      } else {
        g.mig = m;
      }
    }
    return g;
  });
  return out;
}

/** A probe's text as the setup keeps it: slimProbe, compact; other text is left as it is. */
export function slimProbeText(text) {
  if (typeof text !== 'string' || !text.trim()) return text;
  let probe;
  try {
    probe = JSON.parse(text);
  } catch {
    return text;
  }
  return probe && typeof probe === 'object' && probe.schema === PROBE_SCHEMA ? JSON.stringify(slimProbe(probe)) : text;
}

/** What kind of file a parsed JSON document is: 'probe', 'plan', 'config' (a config.json), or ''. */
export function fileKind(doc) {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return '';
  if (doc.schema === PROBE_SCHEMA) return 'probe';
  if (doc.schema === 'vramplan/plan@1') return 'plan';
  if (typeof doc.model_type === 'string' || Array.isArray(doc.architectures)) return 'config';
  return '';
}

/** A cheap look at a file's first bytes: does it say it is a probe file? */
export const looksLikeProbe = (head) => /"schema"\s*:\s*"vramplan\/gpu-probe@1"/.test(head);
