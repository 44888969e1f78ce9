"""A wheel carries the rules and data: build it, install it into a fresh virtual environment, classify.

The fresh environment sees the project's dependencies (rule-engine, PyYAML, ...) through a ``.pth``
file that names the current environment's site-packages, but not this checkout: the wheel is
installed with ``--no-deps``, kdiag runs from a directory outside the checkout without PYTHONPATH,
and the test checks that the ``diagnose`` it imported is the installed one.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from diagnose.classify import classify_records
from diagnose.inputs import read_inputs
from diagnose.rules import load_rules

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("setup.py", "pyproject.toml", "README.md", "diagnose", "tui", "harness", "rules")


def _run(cmd: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), (
        f"{cmd[:4]} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the kdiag wheel built from this checkout; returns the venv's directory."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        p = ROOT / name
        if p.is_dir():
            shutil.copytree(p, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(p, src / name)
    dist = tmp / "dist"
    _run(
        [sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)],
        cwd=src,
    )
    (wheel,) = dist.glob("kdiag-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp)
    py = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # the dependencies come from this environment; its site-packages' own .pth files (an editable
    # install of this checkout) are not processed from a plain path line
    (Path(purelib) / "kdiag-test-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)], cwd=tmp)
    return venv


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def test_the_wheel_holds_the_rules_and_the_data(installed: Path, tmp_path: Path) -> None:
    py = installed / "bin" / "python"
    probe = (
        "import json, diagnose, diagnose.rules as r; from pathlib import Path; "
        "print(json.dumps({'pkg': diagnose.__file__, 'rules': str(r.DEFAULT_RULES_DIR), "
        "'data': sorted(str(p.relative_to(Path(diagnose.__file__).parent)) "
        "for p in (Path(diagnose.__file__).parent / 'data').rglob('*') if p.is_file())}))"
    )
    got = json.loads(_run([str(py), "-c", probe], cwd=tmp_path, env=_clean_env()).stdout)
    assert Path(got["pkg"]).is_relative_to(installed), got["pkg"]
    assert Path(got["rules"]).is_relative_to(installed) and got["rules"].endswith("rulebase")
    here = ROOT / "diagnose"
    data = sorted(
        str(p.relative_to(here)) for p in (here / "data").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    assert got["data"] == data
    out = _run([str(installed / "bin" / "kdiag"), "rules", "list", "--format", "json"], cwd=tmp_path, env=_clean_env())
    assert sorted(r["id"] for r in json.loads(out.stdout)) == sorted(r.id for r in load_rules())


def test_the_installed_kdiag_classifies_the_example_logs(installed: Path, tmp_path: Path) -> None:
    logs = sorted((ROOT / "examples" / "logs").iterdir())
    assert logs
    out = _run(
        [str(installed / "bin" / "kdiag"), "classify", "--format", "jsonl", *map(str, logs)],
        cwd=tmp_path,
        env=_clean_env(),
    )
    got = [json.loads(line) for line in out.stdout.splitlines()]
    want = list(classify_records(read_inputs([str(p) for p in logs])))
    assert len(got) == len(want) == len(logs)
    assert [(g["id"], g["status"], g["category"], g["failure_mode"]) for g in got] == [
        (w.id, w.status, w.category, w.failure_mode) for w in want
    ]
    assert sum(g["status"] == "diagnosed" for g in got) >= len(logs) - 1  # one example log is a bare error line
