/* remedies.h: quantified suggestions for plans that do not fit (remedies.c). */
#ifndef VP_REMEDIES_H
#define VP_REMEDIES_H

#include "plan.h"

/* The estimate without suggestions (estimate.c). */
vp_status vp_estimate_core(const vp_plan *plan, vp_estimate *e, vp_error *err);
/* Fill e->suggestions by re-estimating single changes of the plan. */
void vp_suggest(const vp_plan *plan, vp_estimate *e);

#endif
