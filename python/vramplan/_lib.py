"""ctypes binding of libvramplan.so: the C core's public API (core/include/vramplan.h), called by name.

Every function here hands JSON text to the core and returns the JSON text the core wrote: the same
functions the CLI calls (`vramplan estimate --plan FILE --json` prints
vp_estimate_with_suggestions_json's text), so Python gets the CLI's bytes. Nothing is computed here.
"""
import ctypes
import os
import threading

from .errors import PlanError

_PATH_LEN = 128     # vp_error.path    (checked against the library at load, vp_py_error_layout)
_MESSAGE_LEN = 256  # vp_error.message


class _VpError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("path", ctypes.c_char * _PATH_LEN),
                ("message", ctypes.c_char * _MESSAGE_LEN)]


_lock = threading.Lock()
_state = {}


def _library_path():
    env = os.environ.get("VRAMPLAN_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libvramplan.so")


def _load():
    path = _library_path()
    if not os.path.exists(path):
        raise ImportError(
            "vramplan: the compiled core %s is missing; install the package with "
            "`pip install --no-index --no-build-isolation ./python` (it builds core/ with CMake)" % path)
    lib = ctypes.CDLL(path)
    layout = (ctypes.c_size_t * 7)()
    lib.vp_py_error_layout(layout)
    want = [ctypes.sizeof(_VpError), _VpError.code.offset, _VpError.code.size, _VpError.path.offset,
            _VpError.path.size, _VpError.message.offset, _VpError.message.size]
    if list(layout) != want:
        raise ImportError("vramplan: %s lays out vp_error as %s, this binding as %s; rebuild the package"
                          % (path, list(layout), want))
    c_char_p, c_void_p, c_int = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int
    err_p = ctypes.POINTER(_VpError)
    sigs = {
        "vp_registry_builtin": (c_void_p, [err_p]),
        "vp_registry_free": (None, [c_void_p]),
        "vp_status_name": (c_char_p, [c_int]),
        "vp_free": (None, [c_void_p]),
        # char* results are taken as void* so the bytes can be copied, then freed with vp_free
        "vp_estimate_with_suggestions_json": (c_void_p, [c_char_p, c_void_p, c_int, err_p]),
        "vp_estimate_json": (c_void_p, [c_char_p, c_void_p, c_int, err_p]),
        "vp_fit_json": (c_void_p, [c_char_p, c_void_p, c_char_p, c_int, err_p]),
        "vp_sweep_json": (c_void_p, [c_char_p, c_void_p, c_char_p, c_int, err_p]),
        "vp_recommend_json": (c_void_p, [c_char_p, c_void_p, ctypes.c_int64, c_int, c_int, err_p]),
        "vp_record_to_plan_json": (c_void_p, [c_char_p, err_p]),
        "vp_json_check": (c_int, [c_char_p, err_p]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    err = _VpError()
    reg = lib.vp_registry_builtin(ctypes.byref(err))
    if not reg:
        raise ImportError("vramplan: the builtin presets do not load: " + _error(lib, err).message)
    return lib, reg


def _core():
    """(lib, registry), loaded once per process. The registry is only read after it is built, so calls
    from several threads are safe (ctypes releases the GIL during each call)."""
    with _lock:
        if "lib" not in _state:
            _state["lib"], _state["reg"] = _load()
        return _state["lib"], _state["reg"]


def _error(lib, err):
    name = lib.vp_status_name(err.code)
    code = name.decode() if name else "unknown"
    return PlanError(code, err.path.decode("utf-8", "replace"), err.message.decode("utf-8", "replace"))


def _text_arg(name, value):
    if "\0" in value:
        raise ValueError("%s must not contain a NUL character" % name)
    return value.encode("utf-8")


def _call(fname, plan_text, *args):
    """Calls a vp_*_json function with the plan text first and the error last; returns its text."""
    lib, reg = _core()
    err = _VpError()
    fn = getattr(lib, fname)
    ptr = fn(plan_text, reg, *args, ctypes.byref(err))
    if not ptr:
        if err.code == 0:
            raise MemoryError("vramplan: %s returned nothing" % fname)
        raise _error(lib, err)
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib.vp_free(ptr)


def estimate_text(plan_text, pretty=False):
    return _call("vp_estimate_with_suggestions_json", plan_text, 1 if pretty else 0)


def estimate_bare_text(plan_text, pretty=False):
    return _call("vp_estimate_json", plan_text, 1 if pretty else 0)


def fit_text(plan_text, field, pretty=False):
    return _call("vp_fit_json", plan_text, _text_arg("max", field), 1 if pretty else 0)


def sweep_text(plan_text, field, n_points):
    return _call("vp_sweep_json", plan_text, _text_arg("max", field), n_points)


def recommend_text(plan_text, global_batch, top_n, pretty=False):
    return _call("vp_recommend_json", plan_text, global_batch, top_n, 1 if pretty else 0)


def record_to_plan_text(record_text):
    lib, _ = _core()
    err = _VpError()
    ptr = lib.vp_record_to_plan_json(record_text, ctypes.byref(err))
    if not ptr:
        raise _error(lib, err)
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib.vp_free(ptr)


def json_check(text):
    """vp_json_check: is text JSON the way the core reads it (strict RFC 8259, no key twice)?"""
    lib, _ = _core()
    err = _VpError()
    if lib.vp_json_check(text, ctypes.byref(err)) != 0:
        raise _error(lib, err)
