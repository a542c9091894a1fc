/* plan_device.c: which device of an estimate decides, for the planning layer. */
#include <string.h>

#include "planning.h"

/* The same choice as the estimate's summary (estimate.c summarize): least headroom among the GPUs and
 * the CPU RAM when its size is known (capacity_bytes > 0). */
const vp_device *vp_tightest_device(const vp_estimate *e) {
    const vp_device *worst = NULL;
    for (int i = 0; i < e->n_devices; i++) {
        const vp_device *d = &e->devices[i];
        if (d->index < 0 && !d->capacity_bytes) continue;
        if (!worst || d->headroom_bytes < worst->headroom_bytes) worst = d;
    }
    return worst;
}

const vp_device *vp_tightest_gpu(const vp_estimate *e) {
    const vp_device *worst = NULL;
    for (int i = 0; i < e->n_devices; i++) {
        const vp_device *d = &e->devices[i];
        if (d->index >= 0 && (!worst || d->headroom_bytes < worst->headroom_bytes)) worst = d;
    }
    return worst;
}

uint64_t vp_device_component_bytes(const vp_device *d, const char *id) {
    uint64_t s = 0;
    for (int k = 0; k < d->n_components; k++)
        if (!strcmp(d->components[k].id, id)) s += d->components[k].bytes;
    return s;
}
