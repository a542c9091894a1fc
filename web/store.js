// store.js: the page's state, shared by the controller and the cards.
//
//   store.state    the setup (options.js DEFAULT_STATE shape); the form edits it
//   store.active   the model instance the Model card shows
//   store.presets  the core's preset bundle {models, gpus}
//   page           what the controller does for the cards (filled in by controller.js, so the
//                  cards call it without importing the controller)
import * as S from './setup.js';
import { describeProbe } from './probe.js';

export const store = {
  state: null,
  active: 0,
  presets: { models: [], gpus: [] },
};

/** onChange, writeForm, replaceSetup, offerUndo, scheduleEstimate, scheduleLinkUpdate, setStatus, showBanner, hideApplied, core. */
export const page = {};

// The bundle is {"models":[...], "gpus":[...]} (models/README.md); read it tolerantly.
export const presetId = (p) => String(p.id ?? p.name ?? '');
export const presetName = (p) => String(p.name ?? p.id ?? '');
export function presetModelType(p) {
  if (!p) return '';
  return String(p.family ?? p.config?.model_type ?? p.model_type ?? '');
}
export const findModel = (id) => store.presets.models.find((m) => presetId(m) === id);
export const presetType = (id) => presetModelType(findModel(id));
/** A diffusion pipeline's preset: its file lists pipeline.components (core/src/registry_pipeline.c). */
export const isPipelinePreset = (id) => {
  const c = findModel(id)?.pipeline?.components;
  return !!c && typeof c === 'object';
};
export const planInfo = () => ({ presetType, isPipelinePreset });

/**
 * The bundle's models with each pipeline's components after it as presets of their own ("cogvideox-5b/vae",
 * as the core names them), so an instance running one shows it in the picker and has its family.
 */
export function withComponents(models) {
  const out = [];
  for (const m of models) {
    out.push(m);
    const comps = m?.pipeline?.components;
    if (!comps || typeof comps !== 'object') continue;
    for (const [name, c] of Object.entries(comps)) {
      if (!c || typeof c !== 'object') continue;
      const id = `${presetId(m)}/${name}`;
      const cls = typeof c.config?._class_name === 'string' ? c.config._class_name : String(c.family ?? '');
      out.push({ id, name: cls ? `${id} (${cls})` : id, family: String(c.family ?? ''), component: true });
    }
  }
  return out;
}

export function pickDefault(list, preferred) {
  for (const id of preferred) if (list.some((p) => presetId(p) === id)) return id;
  return list.length ? presetId(list[0]) : '';
}

/** The instance the Model card shows. */
export const inst = () => store.state.instances[store.active];

/** The model family instance i runs (its own model's, or the one it shares). */
export function modelTypeOf(i = store.active, s = store.state) {
  return S.modelTypeOfModel(s.instances[S.ownModelIndex(s, i)].model, presetType);
}

/** GPUs per node: the form's, or the probe file's. */
export function gpuCount(s = store.state) {
  if (s.hardware.source === 'probe') {
    const info = describeProbe(s.hardware.probe);
    return info && info.gpus.length ? info.gpus.length : 1;
  }
  const n = Number(s.hardware.count);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}
