"""``kdiag env --format json`` through diagnose.cli.main on this machine: the real NVML outcome."""

from __future__ import annotations

import io
import json
import sys
import time

from diagnose.cli import main


def _real_nvml_outcome() -> str | None:
    """What pynvml says here when asked directly: its error's name, None when it initialises."""
    import pynvml

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as e:
        return type(e).__name__
    pynvml.nvmlShutdown()
    return None


def test_kdiag_env_json_reports_the_real_nvml_outcome() -> None:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    rc = main(["env", "--format", "json"], out=out, err=err)
    took = time.perf_counter() - t0
    assert rc == 0, err.getvalue()
    data = json.loads(out.getvalue())
    print(f"kdiag env --format json via cli.main: {took * 1000:.0f} ms (snapshot {data['took_s'] * 1000:.0f} ms)")

    init = data["nvml"]["init"]
    real = _real_nvml_outcome()
    assert init["from"] == "nvml:nvmlInit"
    if real is None:  # a GPU machine: NVML answered, and there is at least one device
        assert init["ok"] and data["nvml"]["device_count"]["value"] >= 1
        return
    # this machine (no driver): pynvml raises NVMLError_LibraryNotFound, and kdiag says so as NVML does
    assert not init["ok"] and init["error"] == real
    if real == "NVMLError_LibraryNotFound":
        assert init["code"] == 12 and "Library Not Found" in init["message"]
    tags = {f["tag"]: f["detail"] for f in data["findings"]}
    assert "no-nvml" in tags and real in tags["no-nvml"]
    assert "no-gpu-visible" in tags and tags["no-gpu-visible"].startswith("no usable GPU: ")
    # the software stack is there too, each field saying where it came from
    sw = data["software"]
    assert sw["python"]["value"]["executable"] == sys.executable
    assert {"torch", "triton", "nvcc", "cuda_runtime", "libraries"} <= set(sw)
    assert all("from" in f for f in sw["libraries"].values())


def test_kdiag_env_text_names_the_missing_gpu() -> None:
    out = io.StringIO()
    assert main(["env"], out=out, err=io.StringIO()) == 0
    text = out.getvalue()
    if _real_nvml_outcome() is not None:
        assert "no usable GPU" in text
