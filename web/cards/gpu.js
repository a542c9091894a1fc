// cards/gpu.js: the Hardware card: a GPU preset and GPUs per node, or a probe file written by
// vramplan-probe on the node (which GPU of it to plan against), and CPU RAM per node.
import { $, fillSelect, radio, setRadio, numVal } from '../fields.js';
import { fmtSize, gpuDisplayName } from '../view.js';
import { store, presetId, presetName } from '../store.js';
import { describeProbe, probeNode, probeGpuLabel, PROBE_SCHEMA } from '../probe.js';

export function fillGpuList() {
  fillSelect($('gpu'), store.presets.gpus.map((g) => {
    const mem = g.memory_bytes ?? null;
    const name = presetName(g);
    return { value: presetId(g), label: typeof mem === 'number' ? `${gpuDisplayName(name)} · ${fmtSize(mem)}` : gpuDisplayName(name) };
  }), store.state.hardware.gpu);
}

/** The probe's GPUs in the Device list, and where the file came from. */
export function fillProbeDevices() {
  const hw = store.state.hardware;
  const info = describeProbe(hw.probe);
  const sel = $('probe-device');
  const gpus = info ? info.gpus : [];
  // hardware.device is the position in the probe's devices[] (CUDA order)
  const items = gpus.length
    ? gpus.map((g, i) => ({ value: String(i), label: probeGpuLabel(g, i) }))
    : [{ value: '0', label: 'GPU 0' }];
  fillSelect(sel, items, String(hw.device));
  if (sel.value !== String(hw.device)) {
    sel.value = items[0].value;
    hw.device = Number(items[0].value);
  }
  const parts = [];
  if (info && info.probe.schema === PROBE_SCHEMA) {
    parts.push(`From ${probeNode(info)}`);
    if (gpus.length) parts.push(`${gpus.length} GPU${gpus.length > 1 ? 's' : ''} per node`);
    for (const w of info.warnings.slice(0, 3)) parts.push(`probe warning: ${w}`);
  }
  $('probe-info').textContent = parts.join(' · ');
}

export function read(s) {
  const hw = s.hardware;
  hw.source = radio('hw-source');
  hw.gpu = $('gpu').value || hw.gpu;
  hw.count = numVal($('gpu-count'));
  hw.probe = $('probe-text').value;
  hw.device = Number($('probe-device').value || 0);
}

export function write(s) {
  const hw = s.hardware;
  setRadio('hw-source', hw.source);
  $('gpu-count').value = String(hw.count);
  $('probe-text').value = hw.probe;
  fillGpuList();
  fillProbeDevices();
}

export function showVals(s) {
  return { 'hw-source': s.hardware.source };
}

/** "Planned against the probe of node gpu-07: GPU 1 · ..." for the verdict, or ''. */
export function sourceLine(s) {
  if (s.hardware.source !== 'probe') return '';
  const info = describeProbe(s.hardware.probe);
  if (!info || info.probe.schema !== PROBE_SCHEMA) return '';
  const gpu = info.gpus[s.hardware.device];
  return `Planned against the probe of ${probeNode(info)}: ${probeGpuLabel(gpu, s.hardware.device)}.`;
}
