"""vramplan: will this GPU job fit? The C core of vramplan (core/), one import away.

    import vramplan
    est = vramplan.estimate({"schema": "vramplan/plan@1", ...})   # the vramplan/estimate@1 document
    vramplan.preflight(plan, free_bytes=...)                       # raises vramplan.WillNotFit

Every number comes from the C library (libvramplan.so, built from core/ when the package is
installed): estimate, fit, sweep and recommend hand the plan's JSON text to the same C functions the
CLI calls and return their JSON, so `vramplan.estimate_json(text)` is byte for byte what
`vramplan estimate --plan FILE --json` prints (without its final newline). Python only reads live
models (plan_from_model), the GPU's free memory (preflight) and training frameworks' settings
(vramplan.integrations); it computes no memory term.
"""
import json as _json
import numbers as _numbers

from . import _lib
from ._plan_text import plan_bytes as _plan_bytes
from .errors import PlanError, WillNotFit
from .from_model import plan_from_model
from ._preflight import DeviceError, free_memory, preflight

__version__ = "0.1.0"  # VP_VERSION of core/include/vramplan.h
__all__ = ["estimate", "estimate_json", "fit", "fit_json", "sweep", "recommend", "record_to_plan",
           "plan_from_model", "preflight", "free_memory", "PlanError", "WillNotFit", "DeviceError"]


def estimate_json(plan, *, pretty=False):
    """The vramplan/estimate@1 text of a plan (dict or JSON text), with suggestions when memory is tight:
    vp_estimate_with_suggestions_json, as `vramplan estimate --plan FILE --json [--pretty]` prints it."""
    return _lib.estimate_text(_plan_bytes(plan), pretty)


def estimate(plan):
    """The vramplan/estimate@1 document of a plan (dict or JSON text), as a dict. PlanError when the core
    refuses the plan (.code, .path and .message as the core says them)."""
    return _json.loads(estimate_json(plan))


def _field_name(name, arg):
    if not isinstance(name, str):
        raise ValueError("%s must be \"batch\", \"seq\" or \"new_tokens\", not %r" % (arg, name))
    return name


def fit_json(plan, max="batch", *, pretty=False):  # noqa: A002 (the CLI's --max)
    """vramplan/fit@1 text: the largest batch, seq or new_tokens that fits (`vramplan fit --max ... --json`)."""
    return _lib.fit_text(_plan_bytes(plan), _field_name(max, "max"), pretty)


def fit(plan, max="batch"):  # noqa: A002
    """The largest value of one workload field that fits, the rest of the plan kept: the
    vramplan/fit@1 document (docs/schema/fit.md) as a dict."""
    return _json.loads(fit_json(plan, max))


def _count(value, name, lo, hi):
    if isinstance(value, bool) or not isinstance(value, _numbers.Integral) or not lo <= value <= hi:
        raise ValueError("%s must be an integer from %d to %d, not %r" % (name, lo, hi, value))
    return int(value)


def sweep(plan, max="batch", points=16):  # noqa: A002
    """Peak memory against one workload value (vramplan/sweep@1, docs/schema/sweep.md), for a chart."""
    n = _count(points, "points", 1, 128)
    return _json.loads(_lib.sweep_text(_plan_bytes(plan), _field_name(max, "max"), n))


def recommend(plan, global_batch=0, top=10):
    """Training setups that fit, fastest first (vramplan/recommend@1, docs/schema/recommend.md);
    global_batch 0 keeps the plan's."""
    gb = _count(global_batch, "global_batch", 0, 1 << 40)
    n = _count(top, "top", 1, 32)
    return _json.loads(_lib.recommend_text(_plan_bytes(plan), gb, n))


def record_to_plan(record):
    """A measured run (one line of shared/groundtruth/calibration.jsonl, dict or text) -> the plan the core
    makes of it (vp_record_to_plan_json, what `vramplan calibrate --plans` prints), as JSON text."""
    return _lib.record_to_plan_text(_plan_bytes(record))
