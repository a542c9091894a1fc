/* moment.h: a snapshot of the tensors alive at one instant of a step, as a list of named
 * components. The estimator builds one moment per candidate peak (end of forward, start of
 * backward, end of backward, optimizer step, ...) and reports the largest. */
#ifndef VP_MOMENT_H
#define VP_MOMENT_H

#include <stdint.h>
#include "vramplan.h"

typedef struct {
    char phase[24];
    int quiet; /* skip formatting the explanations (numbers only) */
    int n;
    vp_component c[VP_MAX_COMPONENTS];
} vp_moment;

typedef struct {
    const char *instance; /* name of the model instance, "" for device-wide terms */
    const char *role;
} vp_owner;

void vp_moment_init(vp_moment *m, const char *phase);
/* dst = src (copies only the components in use). */
void vp_moment_copy(vp_moment *dst, const vp_moment *src);
/* Add bytes under (id, owner); merges with an existing entry of the same id and owner. The
 * explanation of the first addition is kept. bytes <= 0 adds nothing. */
void vp_moment_add(vp_moment *m, const vp_owner *o, const char *id, const char *label, int64_t bytes,
                   const char *explain_fmt, ...) __attribute__((format(printf, 6, 7)));
int64_t vp_moment_total(const vp_moment *m);
/* Remove the components with this id (of this instance; NULL = any instance). */
void vp_moment_remove(vp_moment *m, const char *id, const char *instance);

#endif
