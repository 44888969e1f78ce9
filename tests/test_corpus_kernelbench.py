"""Every KernelBench-format pair of corpus/kernelbench/, through `kdiag run SUB --reference REF`, reaches its label.

The CUDA cases compile the submission's load_inline source against torch's extension headers with the
installed nvcc (tens of seconds each): they need the toolkit.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from diagnose.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "corpus" / "kernelbench"
LABELS = yaml.safe_load((CASES / "labels.yaml").read_text())
EXIT = {"pass": 0, "fail": 1, "no-result": 4}


def run_json(case: str, tmp_path: Path, *extra: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["run", str(CASES / case / "submission.py"), "--reference", str(CASES / case / "reference.py")]
    argv += ["--format", "json", "--runs-dir", str(tmp_path), "--timeout", "120", "--probes", "none", "--cpu"]
    argv += ["--no-record", *extra]
    code = main(argv, out=out, err=err)
    assert out.getvalue().strip(), err.getvalue()
    return code, json.loads(out.getvalue()), err.getvalue()


@pytest.fixture
def labelled(kb_run):
    """``kdiag run`` on a labelled case with its label's args, once per session (the CUDA cases compile torch's
    headers: tens of seconds each; tests in other modules that run a case with the same args share the run)."""

    def get(name: str) -> tuple[int, dict, str]:
        return kb_run(name, *LABELS[name].get("args", ()))

    return get


def _needs_toolkit(name: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.toolkit] if name.startswith("cuda_") or LABELS[name].get("toolkit") else []


#: cases the suite runs: a label with ``suite: false`` is a CUDA case whose clean compile or compile error another
#: case already covers (nvcc on torch's extension headers takes most of a minute per case)
SUITE = sorted(n for n in LABELS if LABELS[n].get("suite", True))


@pytest.mark.parametrize("name", [pytest.param(n, marks=_needs_toolkit(n)) for n in SUITE])
def test_kernelbench_pair_reaches_its_label(name: str, labelled) -> None:
    label = LABELS[name]
    code, rep, _ = labelled(name)
    assert (rep["verdict"], code) == (label["verdict"], EXIT[label["verdict"]]), rep
    if label["verdict"] == "pass":
        assert rep["category"] in ("none", None), rep
    else:
        assert rep["category"] == label["category"], rep
    if label.get("note"):
        assert any(label["note"] in n for n in rep["notes"]), rep["notes"]
    if label.get("failure_mode"):
        assert rep["failure_mode"] == label["failure_mode"], rep
    if label.get("rule"):
        assert rep["rule"] == label["rule"], rep
    assert label.get("title", "") in rep["title"], rep["title"]
    if label.get("checked"):
        assert any(c.endswith(label["checked"]) for c in rep["checked"]), rep["checked"]


@pytest.mark.toolkit
def test_a_source_error_quotes_nvcc_and_a_clean_compile_says_what_it_checked(labelled) -> None:
    _, bad, _ = labelled("cuda_source_error")
    quoted = [e["text"] for e in bad["evidence"]]
    assert any('error: identifier "scale" is undefined' in t for t in quoted), quoted
    assert bad["rungs"][0]["name"] == "compile" and bad["rungs"][0]["exit_code"] not in (0, None)
    _, good, _ = labelled("cuda_compiles")
    (checked,) = good["checked"]
    assert checked.startswith("compiles for sm_90 (its CUDA source): ") and " registers, " in checked
    assert "cannot run here: no GPU" in good["title"] and "CPU build" in good["cannot_run"]
    assert "CUDA sources were compiled and checked, not run" in good["machine"]
    assert (good["category"], good["rule"], good["fix"]) == ("environment", None, None)  # nothing to fix in it
    built = Path(good["run_dir"]) / "build" / "source0_load_inline.cu"
    assert built.read_text().startswith("#include <torch/types.h>")


@pytest.mark.toolkit
def test_a_source_that_includes_torch_s_cuda_context_is_checked_past_the_math_libraries_headers(labelled) -> None:
    """torch's ATen/cuda/CUDAContext.h includes cuSPARSE's, cuBLAS's and cuSOLVER's headers: where the toolkit lacks
    them, kdiag's stand-ins take their place in a second compile, and the kernel's own error is still found."""
    _, bad, _ = labelled("cuda_context_source_error")
    quoted = [e["text"] for e in bad["evidence"]]
    assert any('error: identifier "alpah" is undefined' in t for t in quoted), quoted
    assert not any("cusparse" in t for t in quoted), quoted


@pytest.mark.toolkit
def test_the_host_cxx_of_load_inline_is_compiled_with_the_bindings_it_gets(labelled) -> None:
    _, bad, _ = labelled("cuda_cpp_decl_error")
    host = Path(bad["run_dir"]) / "build" / "source1_load_inline.cpp"
    text = host.read_text()
    assert text.startswith("#include <torch/extension.h>\n") and "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)" in text
    assert 'm.def("leaky_relu_cuda", torch::wrap_pybind_function(leaky_relu_cuda), "leaky_relu_cuda");' in text
    assert "-fsyntax-only" in bad["rungs"][0]["argv"]
    assert any("expected initializer before" in e["text"] for e in bad["evidence"]), bad["evidence"]


def test_size_overrides_run_a_kernelbench_problem_at_the_size_given(tmp_path: Path) -> None:
    code, rep, _ = run_json("gpu_scale_size", tmp_path, "--size", "batch_size=4", "--size", "dim=1000")
    assert (code, rep["verdict"]) == (0, "pass"), rep
    assert "ran with --size batch_size=4, dim=1000" in rep["notes"]
    assert not any("instead of" in n for n in rep["notes"])  # it fits: nothing made smaller
    inputs = json.loads((Path(rep["run_dir"]) / "inputs" / "manifest.json").read_text())
    (entry,) = inputs["sizes"]
    assert [t["shape"] for t in entry["tensors"].values()] == [[4, 1000]]


def test_a_size_the_reference_does_not_declare_is_a_usage_error(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    sub, ref = CASES / "gpu_scale_size" / "submission.py", CASES / "gpu_scale_size" / "reference.py"
    code = main(["run", str(sub), "--reference", str(ref), "--size", "rows=8"], out=out, err=err)
    assert code == 2 and "rows: not a module-level size constant" in err.getvalue() and "dim=393216" in err.getvalue()
    code = main(["run", str(sub), "--reference", str(ref), "--size", "dim"], out=out, err=err)
    assert code == 2 and "--size wants NAME=VALUE" in err.getvalue()


def test_the_host_cxx_sees_the_toolkit_headers_torch_gives_it(labelled) -> None:
    # a real sample that includes <cuda_runtime.h> in its cpp_sources and launches the kernel there: the check finds
    # the error its recorded build did (main.cpp:10:5 and 10:26), not a header the check left out
    _, rep, _ = labelled("real_kmu_l1_12_launch_in_cpp")
    quoted = [e["text"] for e in rep["evidence"]]
    # (GCC quotes with \u2018 \u2019 in a UTF-8 locale; kdiag reads them as plain quotes)
    assert any(":10:5: error: 'diag_mult_optimized' was not declared in this scope" in t for t in quoted), quoted
    assert not any("No such file or directory" in t for t in quoted), quoted


def test_a_lazy_extension_the_forward_never_builds_does_not_stop_the_run(labelled) -> None:
    code, rep, _ = labelled("real_cl1_l1_19_relu_inplace")
    assert (code, rep["verdict"]) == (0, "pass"), rep
    assert rep["checked"] and rep["checked"][0].startswith("compiles for sm_90"), rep["checked"]
    assert rep["cannot_run"] is None


@pytest.mark.toolkit
def test_a_build_that_fails_everywhere_and_is_caught_runs_the_fallback_a_gpu_runs(labelled) -> None:
    # CUDA-L1's code: a module-level load_inline whose CUDA does not compile (with torch's headers here; on its
    # H100 the bindings load_inline writes would not have either), inside try/except: the extension is None on any
    # machine and the forward runs PyTorch's conv3d, which the harness measured as a pass
    code, rep, _ = labelled("real_cl1h_l2_08_conv3d_div_module_inline")
    assert (code, rep["verdict"]) == (0, "pass"), rep
    assert any("cannot be built or loaded on any machine" in n and "never the CUDA kernel" in n for n in rep["notes"])
    assert rep["checked"][0].startswith("does not build for sm_90: source0_load_inline.cu("), rep["checked"]


def test_streams_made_when_cuda_is_available_run_under_the_emulation(labelled) -> None:
    # CUDA-L1's code makes a torch.cuda.Stream in __init__ when CUDA is available and enters it when x.is_cuda: the
    # emulation says both, and its streams do nothing (the CPU runs everything in order)
    code, rep, _ = labelled("real_cl1h_l2_05_convtranspose_bias_tanh")
    assert (code, rep["verdict"]) == (0, "pass"), rep
    assert any(n.startswith("CUDA emulated on the CPU") and "torch.cuda.Stream" in n for n in rep["notes"])
