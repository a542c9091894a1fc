"""vramplan.estimate / fit / record_to_plan against the CLI, byte for byte, and the errors of bad plans."""
import glob
import json
import os
import re

import pytest

import vramplan
from conftest import ROOT

EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))


def test_there_are_examples():
    assert len(EXAMPLES) >= 9


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_estimate_is_the_cli_json_byte_for_byte(cli, path):
    rc, out, err = cli("estimate", "--plan", path, "--json")
    assert rc == 0, err
    with open(path, "rb") as f:
        text = f.read()
    # the CLI prints the core's text and a newline
    assert vramplan.estimate_json(text) + "\n" == out
    assert vramplan.estimate_json(text.decode("utf-8")) + "\n" == out
    # a dict of the same plan (re-serialised by json.dumps) gives the same bytes
    assert vramplan.estimate_json(json.loads(text)) + "\n" == out
    assert vramplan.estimate(json.loads(text)) == json.loads(out)


def test_pretty_is_the_cli_pretty(cli):
    path = os.path.join(ROOT, "examples", "phi3-dpo-reference.json")
    rc, out, _ = cli("estimate", "--plan", path, "--json", "--pretty")
    assert rc == 0
    assert vramplan.estimate_json(open(path).read(), pretty=True) + "\n" == out


def test_calibration_plans_byte_for_byte(cli, calibration_path, tmp_path):
    rc, plans_out, err = cli("calibrate", calibration_path, "--plans")
    assert rc == 0, err
    cli_plans = plans_out.splitlines()
    records = [l for l in open(calibration_path, encoding="utf-8").read().splitlines() if l.strip()]
    assert len(records) == len(cli_plans) >= 39
    for i, (rec, cli_plan) in enumerate(zip(records, cli_plans)):
        # the core's record -> plan, through Python, is the plan the CLI prints
        plan = vramplan.record_to_plan(rec)
        assert plan == cli_plan, json.loads(rec)["id"]
        f = tmp_path / ("plan%d.json" % i)
        f.write_text(plan, encoding="utf-8")
        rc, out, err = cli("estimate", "--plan", str(f), "--json")
        assert rc == 0, err
        assert vramplan.estimate_json(plan) + "\n" == out, json.loads(rec)["id"]


def test_calibration_params_are_the_measured_counts(calibration_path):
    # the records' measured parameter counts (torch sum of numel on the H100) against the core's
    n = 0
    for line in open(calibration_path, encoding="utf-8"):
        if not line.strip():
            continue
        rec = json.loads(line)
        est = vramplan.estimate(vramplan.record_to_plan(line))
        assert est["instances"][0]["params_total"] == rec["measured"]["params_total"], rec["id"]
        n += 1
    assert n >= 39


def test_fit_is_the_cli_fit(cli):
    path = os.path.join(ROOT, "examples", "llama2-7b-lora-24gb.json")
    rc, out, err = cli("fit", "--plan", path, "--max", "batch", "--json")
    assert rc == 0, err
    assert vramplan.fit_json(open(path).read(), max="batch") + "\n" == out
    fit = vramplan.fit(json.load(open(path)), max="batch")
    assert fit["schema"] == "vramplan/fit@1" and fit["field"] == "batch"
    assert fit["value"] == json.loads(out)["value"] >= 1
    assert fit["estimate"]["fits"] is True and fit["next"]["fits"] is False


def test_fit_errors_name_the_field(h100_plan):
    with pytest.raises(ValueError, match="max"):
        vramplan.fit(h100_plan, max=3)
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.fit(h100_plan, max="heads")
    assert e.value.code == "field"
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.fit(h100_plan, max="new_tokens")  # a training plan generates nothing
    assert e.value.path == "workload.new_tokens"


def test_recommend_and_sweep(h100_plan):
    rec = vramplan.recommend(h100_plan, top=3)
    assert rec["schema"] == "vramplan/recommend@1"
    assert 1 <= len(rec["entries"]) <= 3
    sw = vramplan.sweep(h100_plan, max="batch", points=8)
    assert sw["schema"] == "vramplan/sweep@1"
    with pytest.raises(ValueError, match="points"):
        vramplan.sweep(h100_plan, points=0)


# ---- bad input: PlanError / ValueError naming the field, never a crash ---------------------------

def test_wrong_type_names_the_field(h100_plan):
    h100_plan["workload"]["batch"] = "4"
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate(h100_plan)
    assert (e.value.code, e.value.path) == ("field", "workload.batch")
    assert "workload.batch" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_unknown_field_names_the_field(h100_plan):
    h100_plan["instances"][0]["precison"] = "bf16"
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate(h100_plan)
    assert e.value.path == "instances[0].precison"
    assert e.value.message == "unknown field instances[0].precison"


def test_core_range_error(h100_plan):
    h100_plan["workload"]["batch"] = 0
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate(h100_plan)
    assert (e.value.code, e.value.path) == ("range", "workload.batch")


@pytest.mark.parametrize("plan, path", [
    (42, ""), (None, ""), ([1, 2], ""),
    ({"schema": "vramplan/plan@1", "workload": {"batch": float("nan")}}, "workload.batch"),
    ({"schema": "vramplan/plan@1", "workload": {1: 2}}, "workload"),
    ({"schema": "vramplan/plan@1", "instances": [{"model": object()}]}, "instances[0].model"),
])
def test_values_json_cannot_hold(plan, path):
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate(plan)
    assert e.value.path == path


def test_text_errors_are_the_cores():
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate('{"schema": "vramplan/plan@1",\n "workload": {"batch": 4,}}')
    assert e.value.code == "json" and re.search(r"line 2, column \d+", e.value.message)
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate('{"schema": "vramplan/plan@1"}\0{"junk": 1}')
    assert "NUL" in e.value.message
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate(b'{"schema": "vramplan/plan@1", "x": "\xff"}')
    assert e.value.code == "json"
    with pytest.raises(vramplan.PlanError) as e:
        vramplan.estimate('{"schema": "vramplan/plan@9"}')
    assert e.value.code == "schema" and e.value.path == "schema"


def test_deep_nesting_is_an_error_not_a_crash():
    deep = {}
    cur = deep
    for _ in range(2000):
        cur["a"] = {}
        cur = cur["a"]
    with pytest.raises(vramplan.PlanError):
        vramplan.estimate(deep)
    with pytest.raises(vramplan.PlanError):
        vramplan.estimate("[" * 100000 + "]" * 100000)


def test_error_struct_matches_the_header():
    # vp_error in core/include/vramplan.h: the binding reads path[128] and message[256]
    header = open(os.path.join(ROOT, "core", "include", "vramplan.h")).read()
    body = re.search(r"typedef struct \{\s*vp_status code;(.*?)\} vp_error;", header, re.S).group(1)
    sizes = dict((n, int(s)) for n, s in re.findall(r"char (\w+)\[(\d+)\]", body))
    from vramplan import _lib
    assert sizes == {"path": _lib._PATH_LEN, "message": _lib._MESSAGE_LEN}


def test_threads_share_the_core(h100_plan):
    # ctypes releases the GIL during each call; the builtin registry is only read after it is built
    from concurrent.futures import ThreadPoolExecutor
    want = vramplan.estimate_json(h100_plan)
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda _: vramplan.estimate_json(h100_plan), range(32)))
    assert got == [want] * 32


def test_import_needs_no_torch():
    import subprocess
    import sys
    code = "import sys, vramplan; assert 'torch' not in sys.modules and 'transformers' not in sys.modules"
    subprocess.check_call([sys.executable, "-c", code], cwd="/")
