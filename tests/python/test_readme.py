"""The README's Python lines run as written: estimate works and preflight raises WillNotFit with the
message the README shows."""
import os
import re

import pytest

import vramplan
from conftest import ROOT


def readme_python():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    sec = text[text.index("\n## Python\n"):]
    sec = sec[:sec.index("\n## ", 1)]
    code = re.search(r"```python\n(.*?)```", sec, re.S).group(1)
    shown = re.search(r"```\nvramplan.WillNotFit: (.*?)\n  \.\.\.\n```", sec, re.S).group(1)
    return code, shown


def test_readme_lines_run_and_raise_will_not_fit():
    code, shown = readme_python()
    assert "import vramplan" in code and "vramplan.estimate(" in code and "vramplan.preflight(" in code
    scope = {}
    with pytest.raises(vramplan.WillNotFit) as e:
        exec(compile(code, "README.md", "exec"), scope)
    assert scope["est"]["schema"] == "vramplan/estimate@1" and scope["est"]["fits"] is True
    # the shape of the output the README shows (its numbers move with the model; the structure must not)
    msg = str(e.value)
    first = shown.split("\n")[0]
    assert msg.startswith(first[:first.index(" needs ") + 7])
    assert "\nGPU 0 has 24.00 GiB free (free_bytes).\nWhat to change:\n  - " in msg
    assert "\nGPU 0 has 24.00 GiB free (free_bytes).\nWhat to change:\n  - " in shown + "\n  - "
