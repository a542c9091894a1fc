"""The package's build backend (PEP 517 / PEP 660), standard library only, so that

    pip install --no-index --no-build-isolation ./python

works offline in any fresh venv: it needs neither setuptools nor wheel, only CMake and a C compiler
(scripts/deps.sh native: cmake, pkg-config, libcjson-dev, build-essential).

build_wheel runs CMake on python/CMakeLists.txt, which includes the top-level CMakeLists.txt (the
core's sources, flags, embedded presets and cJSON, as the CLI has them), builds the shared library
libvramplan.so, and zips it with the vramplan/ sources into a wheel. Environment:
  VRAMPLAN_CMAKE_BUILD_DIR  the CMake build folder (default python/build/cmake, reused: incremental)
  VRAMPLAN_BUILD_TYPE       CMAKE_BUILD_TYPE (default Release)
"""
import base64
import hashlib
import os
import shutil
import subprocess
import sysconfig
import tempfile
import zipfile

NAME = "vramplan"
VERSION = "0.1.0"  # VP_VERSION, core/include/vramplan.h
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PKG = os.path.join(HERE, NAME)
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = """Metadata-Version: 2.1
Name: vramplan
Version: {v}
Summary: Predict the peak GPU memory of PyTorch jobs before they run (the vramplan C core, through ctypes)
Requires-Python: >=3.8
""".format(v=VERSION)


def _tag():
    # the library is loaded with ctypes, not as a CPython extension: any Python 3 on this platform
    return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _wheel_file():
    return "Wheel-Version: 1.0\nGenerator: vramplan build_backend\nRoot-Is-Purelib: false\nTag: %s\n" % _tag()


def _build_dir():
    env = os.environ.get("VRAMPLAN_CMAKE_BUILD_DIR")
    if env:
        return env
    d = os.path.join(HERE, "build", "cmake")
    try:
        os.makedirs(d, exist_ok=True)
        return d
    except OSError:  # a read-only source tree
        return tempfile.mkdtemp(prefix="vramplan-cmake-")


def _build_library():
    """Builds libvramplan.so with CMake; returns its path."""
    if not os.path.isfile(os.path.join(ROOT, "core", "include", "vramplan.h")):
        raise RuntimeError("vramplan: the C core is not at %s; install from the repository (pip install ./python)"
                           % os.path.join(ROOT, "core"))
    if shutil.which("cmake") is None:
        raise RuntimeError("vramplan: cmake is needed to build the C core "
                           "(apt-get install cmake pkg-config libcjson-dev build-essential, or scripts/deps.sh native)")
    build = _build_dir()
    btype = os.environ.get("VRAMPLAN_BUILD_TYPE", "Release")
    subprocess.check_call(["cmake", "-S", HERE, "-B", build, "-DCMAKE_BUILD_TYPE=" + btype])
    subprocess.check_call(["cmake", "--build", build, "--target", "vramplan_native", "-j", str(os.cpu_count() or 1)])
    return os.path.join(build, "libvramplan.so")


def _sources():
    """(archive name, path) of the package's Python files."""
    out = []
    for d, dirs, files in os.walk(PKG):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(d, f)
                out.append((os.path.relpath(path, HERE).replace(os.sep, "/"), path))
    return out


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _write_wheel(wheel_directory, entries):
    """entries: (archive name, bytes). Adds the dist-info files and RECORD; returns the wheel's name."""
    name = "%s-%s-%s.whl" % (NAME, VERSION, _tag())
    entries = list(entries) + [(DIST_INFO + "/METADATA", METADATA.encode()),
                               (DIST_INFO + "/WHEEL", _wheel_file().encode())]
    record = [_record_line(n, d) for n, d in entries] + [DIST_INFO + "/RECORD,,"]
    entries.append((DIST_INFO + "/RECORD", ("\n".join(record) + "\n").encode()))
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in entries:
            info = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if n.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
    return name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- PEP 517 -------------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(METADATA)
    with open(os.path.join(d, "WHEEL"), "w") as f:
        f.write(_wheel_file())
    return DIST_INFO


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    lib = _build_library()
    entries = [(n, _read(p)) for n, p in _sources()]
    entries.append((NAME + "/libvramplan.so", _read(lib)))
    return _write_wheel(wheel_directory, entries)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: the library is built into python/vramplan/ and a .pth file puts python/ on sys.path."""
    shutil.copyfile(_build_library(), os.path.join(PKG, "libvramplan.so"))
    return _write_wheel(wheel_directory, [(NAME + "_editable.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("vramplan: no source distribution: the package builds from the repository's core/ "
                       "(pip install ./python)")
