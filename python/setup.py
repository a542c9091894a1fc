"""Build and install the vramplan Python package, offline:

    pip install --no-index --no-build-isolation ./python

The C core (../core) is compiled by CMake (python/CMakeLists.txt, which includes the top-level
CMakeLists.txt: the same sources, flags, embedded presets and cJSON as the CLI) into
vramplan/libvramplan.so, which vramplan/_lib.py loads with ctypes. Needs cmake, a C compiler,
pkg-config and libcjson-dev (scripts/deps.sh). Environment:
  VRAMPLAN_CMAKE_BUILD_DIR  reuse this CMake build folder (incremental), instead of a fresh one
  VRAMPLAN_BUILD_TYPE       CMAKE_BUILD_TYPE (default Release)
"""
import os
import shutil
import subprocess

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeLibrary(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class build_core(build_ext):
    """Builds libvramplan.so with CMake instead of compiling Python extension sources."""

    def get_ext_filename(self, ext_name):
        return os.path.join(*ext_name.split(".")[:-1], "libvramplan.so")

    def build_extension(self, ext):
        root = os.path.dirname(HERE)
        if not os.path.isfile(os.path.join(root, "core", "include", "vramplan.h")):
            raise RuntimeError("vramplan: the C core is not at %s/core; build from the repository "
                               "(pip install ./python from its root)" % root)
        if shutil.which("cmake") is None:
            raise RuntimeError("vramplan: cmake is needed to build the C core (apt-get install cmake "
                               "pkg-config libcjson-dev build-essential, or scripts/deps.sh native)")
        build = os.environ.get("VRAMPLAN_CMAKE_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp), "cmake")
        os.makedirs(build, exist_ok=True)
        btype = os.environ.get("VRAMPLAN_BUILD_TYPE", "Release")
        subprocess.check_call(["cmake", "-S", HERE, "-B", build, "-DCMAKE_BUILD_TYPE=" + btype])
        subprocess.check_call(["cmake", "--build", build, "--target", "vramplan_native",
                               "-j", str(os.cpu_count() or 1)])
        out = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.join(build, "libvramplan.so"), out)


setup(
    name="vramplan",
    version="0.1.0",  # VP_VERSION, core/include/vramplan.h
    description="Predict the peak GPU memory of PyTorch jobs before they run (the vramplan C core, via ctypes)",
    packages=find_packages(include=["vramplan", "vramplan.*"]),
    ext_modules=[CMakeLibrary("vramplan.libvramplan")],
    cmdclass={"build_ext": build_core},
    python_requires=">=3.9",
    zip_safe=False,
)
