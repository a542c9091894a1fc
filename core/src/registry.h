/* registry.h: lookups into the preset bundle (registry.c). */
#ifndef VP_REGISTRY_H
#define VP_REGISTRY_H

#include <cjson/cJSON.h>
#include "vramplan.h"

const cJSON *vp_registry_model(const vp_registry *reg, const char *id);
const cJSON *vp_registry_gpu(const vp_registry *reg, const char *id);
/* "ID/component" of a pipeline preset: "ID/transformer" is the preset itself, any other name the entry
 * pipeline.components[name] ({family, source, params_total, params_source, config}); NULL if none. */
const cJSON *vp_registry_component(const vp_registry *reg, const char *id);

#endif
