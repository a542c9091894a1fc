"""Plans (dict or JSON text) -> the UTF-8 bytes the core reads, and back.

Text is handed to the core as it is, the way the CLI hands it a file's bytes, so the core reads it
strictly (duplicate keys, stray bytes, numbers JSON does not have: docs/schema/plan.md). A dict is
written with json.dumps after a walk that refuses, naming the field, what JSON cannot hold (a
tensor, NaN, a key that is not a string), so no value is silently turned into something else.
"""
import json
import numbers

from .errors import PlanError

_MAX_DEPTH = 512  # the core refuses deeper nesting too (docs/schema/plan.md)


def _join(path, key):
    return "%s.%s" % (path, key) if path else str(key)


def _plain(value, path, depth):
    """A copy of value made of dict/list/str/int/float/bool/None, or PlanError naming the field."""
    if depth > _MAX_DEPTH:
        raise PlanError("json", path, "%s: nesting deeper than %d levels" % (path or "plan", _MAX_DEPTH))
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        v = float(value)
        if v != v or v in (float("inf"), float("-inf")):
            raise PlanError("range", path, "%s is not a finite number (%r)" % (path or "plan", value))
        return v
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise PlanError("field", path,
                                "%s: the key %r is not a string" % (path or "plan", k))
            out[k] = _plain(v, _join(path, k), depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, "%s[%d]" % (path, i), depth + 1) for i, v in enumerate(value)]
    raise PlanError("field", path, "%s: a %s is not a JSON value" % (path or "plan", type(value).__name__))


def plan_bytes(plan):
    """The plan as the UTF-8 text the core reads."""
    if isinstance(plan, (bytes, bytearray)):
        data = bytes(plan)
    elif isinstance(plan, str):
        try:
            data = plan.encode("utf-8")
        except UnicodeEncodeError as e:
            raise PlanError("json", "", "the plan text is not valid Unicode (%s)" % e.reason) from None
    elif isinstance(plan, dict):
        data = json.dumps(_plain(plan, "", 0), ensure_ascii=False).encode("utf-8")
    else:
        raise PlanError("field", "",
                        "plan must be a dict or JSON text (vramplan/plan@1), not %s" % type(plan).__name__)
    if b"\0" in data:
        # a C string ends at the first NUL: what follows it would never be read
        raise PlanError("json", "", "the plan text contains a NUL byte at offset %d" % data.index(b"\0"))
    return data


def plan_dict(plan, check):
    """The plan as a new dict. Text is first checked by the core (check(text) raises PlanError), so a key
    given twice or a stray byte is refused as the CLI refuses it, instead of json.loads's last-one-wins."""
    if isinstance(plan, dict):
        return json.loads(plan_bytes(plan))
    data = plan_bytes(plan)
    check(data)
    value = json.loads(data.decode("utf-8"))
    if not isinstance(value, dict):
        raise PlanError("field", "", "the plan must be a JSON object, not %s" % type(value).__name__)
    return value
