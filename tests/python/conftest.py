"""Shared fixtures of the Python package's tests (tests/python/run.sh runs them in a fresh venv)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # llama_like.py, stand-ins


def cli_path():
    return os.environ.get("VRAMPLAN_CLI", os.path.join(ROOT, "build", "cli", "vramplan"))


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if not os.access(path, os.X_OK):
        pytest.fail("the CLI %s is not built (cmake --build build)" % path)

    def run(*args):
        r = subprocess.run([path, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")

    return run


@pytest.fixture(scope="session")
def calibration_path():
    path = os.environ.get("VRAMPLAN_CALIBRATION",
                          os.path.join(os.path.dirname(ROOT), "shared", "groundtruth", "calibration.jsonl"))
    if not os.path.isfile(path):
        pytest.skip("no calibration records at %s" % path)
    return path


@pytest.fixture
def h100_plan():
    return {"schema": "vramplan/plan@1", "workload": {"batch": 4, "seq": 1024},
            "instances": [{"model": {"preset": "llama-3.2-1b"}, "precision": "amp_bf16"}]}
