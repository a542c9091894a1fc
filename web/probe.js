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
