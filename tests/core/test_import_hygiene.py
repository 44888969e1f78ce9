"""The headless core stays light: no UI, no GPU framework, in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("textual", "rich", "tui", "torch", "triton", "cupy")


def loaded_after(code: str) -> list[str]:
    probe = f"""
import sys, json
{code}
print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_core_import_loads_no_ui_and_no_gpu_framework() -> None:
    mods = loaded_after("import diagnose, diagnose.cli, diagnose.classify, diagnose.matcher, diagnose.inputs")
    assert not [m for m in FORBIDDEN if m in mods]


def test_classifying_a_log_loads_no_ui_and_no_gpu_framework() -> None:
    code = (
        "import diagnose\n"
        "r = diagnose.classify_log('RuntimeError: CUDA error: no kernel image is available for execution on the device')\n"
        "assert r.category == 'environment', r.to_dict()\n"
    )
    mods = loaded_after(code)
    # the child's own assertion (run with check=True) shows it classified; rule-engine itself may not be imported,
    # since rules whose expression the pre-check answers exactly never reach it
    assert "diagnose" in mods
    assert not [m for m in FORBIDDEN if m in mods]


def test_cli_env_and_rules_load_no_gpu_framework() -> None:
    code = "import io\nfrom diagnose.cli import main\nassert main(['rules', 'list'], out=io.StringIO()) == 0\n"
    mods = loaded_after(code)
    assert not [m for m in FORBIDDEN if m in mods]


def test_the_harness_table_loads_no_collectors_and_no_rules() -> None:
    """The harness's children read one table (``diagnose.run.arrays.STORAGE``): the package's API is imported on
    first use, so every child does not pay for the collectors and the rule base."""
    probe = (
        "import sys, json, diagnose.run.arrays\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('diagnose'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    assert loaded == ["diagnose", "diagnose.run", "diagnose.run.arrays"], loaded
    api = "import diagnose\nprint(diagnose.collect('x').__class__.__name__, diagnose.Report.__name__)\n"
    out = subprocess.run([sys.executable, "-c", api], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["Evidence", "Report"]
