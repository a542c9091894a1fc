/* planning.h: the planning layer above the estimator (plan_*.c). Everything here edits copies of a
 * parsed plan and calls vp_estimate_plan; estimate.c never includes this header. */
#ifndef VP_PLANNING_H
#define VP_PLANNING_H

#include "plan.h"

/* ---- plan_suggest.c -------------------------------------------------------------------------- */
/* Fill e->suggestions (e is plan's estimate) by re-estimating single and combined changes of the plan. */
void vp_plan_suggest(const vp_plan *plan, vp_estimate *e);

#endif
