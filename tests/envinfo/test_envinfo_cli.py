"""``kdiag env`` (diagnose.envinfo.render.main) on this machine: real NVML, real stack."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

from diagnose.envinfo.render import main

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "nvml"


def _real_nvml_outcome() -> str | None:
    """What pynvml says here, asked directly: None when it initialises."""
    import pynvml

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as e:
        return type(e).__name__
    pynvml.nvmlShutdown()
    return None


def test_env_json_reports_the_real_nvml_outcome() -> None:
    out = io.StringIO()
    t0 = time.perf_counter()
    rc = main(["--format", "json"], out=out)
    took = time.perf_counter() - t0
    print(
        f"kdiag env --format json (in process): {took * 1000:.0f} ms, snapshot {json.loads(out.getvalue())['took_s'] * 1000:.0f} ms"
    )
    assert rc == 0
    data = json.loads(out.getvalue())
    real = _real_nvml_outcome()
    init = data["nvml"]["init"]
    if real is None:
        assert init["ok"]
    else:
        assert not init["ok"] and init["error"] == real
        tags = {f["tag"] for f in data["findings"]}
        assert {"no-nvml", "no-gpu-visible"} <= tags
        assert any("no usable GPU" in f["detail"] for f in data["findings"])
    assert data["software"]["python"]["value"]["executable"] == sys.executable
    assert "torch" in data["software"] and "nvcc" in data["software"]


def test_env_text() -> None:
    out = io.StringIO()
    assert main([], out=out) == 0
    text = out.getvalue()
    assert "NVML" in text and "Software" in text and "Findings" in text


def test_env_replay_and_bad_arguments() -> None:
    out = io.StringIO()
    assert main(["--replay", str(FIX / "ecc-uncorrectable-a100.json"), "--format", "json"], out=out) == 0
    data = json.loads(out.getvalue())
    assert "ecc-uncorrectable" in {f["tag"] for f in data["findings"]}
    assert data["nvml"]["source"].startswith("replay of ")
    assert main(["--replay", str(FIX / "no-such-file.json")], out=io.StringIO()) == 2
    assert main(["--format", "yaml"], out=io.StringIO()) == 2


def test_record_nvml_writes_a_replayable_file(tmp_path: Path) -> None:
    target = tmp_path / "rec.json"
    assert main(["--format", "json", "--record-nvml", str(target)], out=io.StringIO()) == 0
    rec = json.loads(target.read_text())
    assert rec["kdiag_nvml_recording"] == 1 and rec["provenance"]["how"] == "captured"
    out = io.StringIO()
    assert main(["--format", "json", "--replay", str(target)], out=out) == 0


def test_env_in_a_fresh_interpreter_imports_no_gpu_framework() -> None:
    code = (
        "import sys, time, json, io\n"
        "t = time.perf_counter()\n"
        "from diagnose.envinfo.render import main\n"
        "buf = io.StringIO(); rc = main(['--format', 'json'], out=buf)\n"
        "print(json.dumps({'rc': rc, 's': time.perf_counter() - t,\n"
        "                  'gpu_modules': sorted(m for m in ('torch', 'triton', 'cupy') if m in sys.modules)}))\n"
    )
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False
    )
    wall = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"kdiag env in a fresh interpreter: {wall * 1000:.0f} ms wall, {got['s'] * 1000:.0f} ms after start")
    assert got["rc"] == 0 and got["gpu_modules"] == []
