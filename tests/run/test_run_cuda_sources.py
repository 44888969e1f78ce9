"""The CUDA sources of a Python submission, read from its AST (never imported), and what no-result says."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from diagnose.run import cuda_sources as S
from diagnose.run import no_result as NR

ROOT = Path(__file__).resolve().parent.parent.parent


def found(src: str, folder: Path | None = None) -> S.Found:
    return S.extract_text(textwrap.dedent(src), folder)


def test_load_inline_keywords_names_and_concatenation() -> None:
    f = found('''
        import textwrap
        from torch.utils.cpp_extension import load_inline
        head = "#define N 4\\n"
        body = textwrap.dedent("""
            __global__ void k(float* x) { x[threadIdx.x] = N; }
        """)
        decl = ["torch::Tensor f(torch::Tensor x);"]
        raise SystemExit("importing this file would stop here")
        m = load_inline(name="m", cpp_sources=decl, cuda_sources=[head + body], functions=["f"])
    ''')
    cuda, cpp = f.sources
    assert (cuda.api, cuda.lang, cuda.line, cpp.lang) == ("load_inline", "cuda", 10, "cpp")
    assert cuda.text.startswith(S.LOAD_INLINE_CUDA_PREFIX) and "#define N 4\n\n__global__ void k" in cuda.text
    assert cuda.needs_torch and not cuda.device_only
    # load_inline's main.cpp: the prefix, the declarations, then the module that binds `functions`
    assert cpp.text == S.LOAD_INLINE_CPP_PREFIX + decl_text() + "\n" + S.bindings(["f"])
    assert 'm.def("f", torch::wrap_pybind_function(f), "f");' in cpp.text


def test_load_inline_functions_as_a_dict_and_without_error_handling() -> None:
    f = found(
        'm = load_inline("m", "int f();\\nint g();", "__global__ void k() {}", '
        '{"f": "doc", "g": "doc"}, with_pytorch_error_handling=False)'
    )
    cpp = f.sources[1]
    assert cpp.text.endswith('m.def("f", f, "f");\nm.def("g", g, "g");\n}')


def decl_text() -> str:
    return "torch::Tensor f(torch::Tensor x);"


def test_load_inline_positional_arguments() -> None:
    f = found('m = load_inline("m", "int f();", "__global__ void k() {}")')
    assert [s.lang for s in f.sources] == ["cuda", "cpp"]
    assert f.sources[0].text.endswith("__global__ void k() {}")


def test_load_reads_the_files_it_names_beside_the_submission(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    f = found('from torch.utils.cpp_extension import load\nm = load(name="m", sources=["k.cu", "gone.cu"])', tmp_path)
    assert [(s.api, s.lang, s.text) for s in f.sources] == [("load", "cuda", "__global__ void k() {}\n")]
    assert any("gone.cu" in u for u in f.unresolved)


def test_cupy_and_nvrtc_are_device_only() -> None:
    f = found('''
        import cupy as cp
        code = r"""extern "C" __global__ void k(float* x) { x[0] = 1.f; }"""
        k = cp.RawKernel(code, "k")
        mod = cp.RawModule(code=code + "\\n")
        err, prog = nvrtc.nvrtcCreateProgram(str.encode(code), b"k.cu", 0, [], [])
        err, prog2 = nvrtc.nvrtcCreateProgram(code.encode(), b"k.cu", 0, [], [])
    ''')
    assert [s.api for s in f.sources] == ["RawKernel", "RawModule", "nvrtc", "nvrtc"]
    assert all(s.device_only and s.text.startswith('extern "C"') for s in f.sources)


@pytest.mark.parametrize(
    ("body", "platform"),
    [
        ("#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = 1.f; }", "HIP"),
        ("void f(float* x, int n) { hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, x, n); }", "HIP"),
        ("__global__ void k(int* x) { x[0] = __builtin_amdgcn_readfirstlane(x[1]); }", "HIP"),
        ("#include <musa_runtime.h>\n__global__ void k(float* x) { x[0] = 1.f; }", "MUSA"),
        ("void f(float* x) { musaMalloc(&x, 4); }", "MUSA"),
        ('#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void k(GM_ADDR x) {}', "Ascend C"),
        ("__mlu_global__ void k(float* x) { x[0] = 1.f; }", "BANG C"),
        ("#include <cuda_fp16.h>\n__global__ void k(__half* x) { x[0] = __hadd(x[0], x[1]); }", None),
        ("// hipify later; port to musa and __aicore__ later\n__global__ void k(float* x) { x[0] = 1.f; }", None),
    ],
)
def test_other_vendors_sources_are_told_from_cuda_ones(body: str, platform: str | None) -> None:
    f = found(f"""
        from torch.utils.cpp_extension import load_inline
        src = {body!r}
        mod = load_inline(name="m", cpp_sources="void f();", cuda_sources=src)
    """)
    (cuda,) = [s for s in f.sources if s.lang == "cuda"]
    assert (cuda.platform.name if cuda.platform else None) == platform


def test_the_target_a_source_s_own_flags_name_is_read() -> None:
    f = found("""
        from torch.utils.cpp_extension import load_inline
        mod = load_inline(name="m", cpp_sources="void f();", cuda_sources="__global__ void k() {}",
                          extra_cuda_cflags=["-O3", "-gencode=arch=compute_100a,code=sm_100a"])
        plain = load_inline(name="p", cpp_sources="void g();", cuda_sources="__global__ void q() {}")
    """)
    assert [(s.lang, s.arch) for s in f.sources] == [("cuda", "sm_100a"), ("cpp", None), ("cuda", None), ("cpp", None)]


def test_what_cannot_be_read_without_running_is_said() -> None:
    f = found('n = 4\nm = load_inline(name="m", cpp_sources="", cuda_sources=f"#define N {n}")')
    assert f.sources == ()
    assert f.unresolved == (
        "load_inline cuda_sources (line 2): not a string kdiag can read without running the submission",
    )
    assert found("def broken(:\n").sources == ()


SNAP = {
    "software": {
        "torch": {"version": {"value": "2.13.0+cpu"}, "cuda": {"value": None}, "hip": {"value": None}},
        "libraries": {"libcuda": {"value": None, "error": "no libcuda.so.1"}},
        "nvcc": {"value": {"path": "/opt/cuda/bin/nvcc"}},
    }
}


def test_no_result_names_the_real_cause() -> None:
    assert NR.causes(SNAP, gpu=False) == (
        "no GPU (no NVIDIA driver: libcuda.so.1 not found)",
        "torch 2.13.0+cpu is a CPU build (no CUDA)",
    )
    cuda_torch = {"software": {"torch": {"version": {"value": "2.8.0"}, "cuda": {"value": "12.8"}}}}
    assert NR.causes(cuda_torch, gpu=False) == ("no GPU",)
    assert NR.causes(cuda_torch, gpu=True) == ()
    assert NR.mode(SNAP, gpu=True) == "library-missing"
    assert "nvcc is installed (/opt/cuda/bin/nvcc)" in NR.cuda_home_note(SNAP, "2.13.0+cpu")
    assert NR.cannot_run("environment", "toolchain-missing") and not NR.cannot_run("kernel-logic", "hang")
    assert NR.causes({"software": "garbage"}, gpu=False) == ("no GPU",)  # bad input never crashes


REF = """
    import torch
    import torch.nn as nn

    batch_size = 4
    dim = 32


    class Model(nn.Module):
        def forward(self, x):
            return torch.relu(x)


    def get_inputs():
        return [torch.randn(batch_size, dim){device}]


    def get_init_inputs():
        return []
"""


def test_a_reference_that_needs_cuda_runs_under_the_documented_emulation(write, tmp_path: Path, kdiag_run) -> None:
    """A plain-PyTorch submission whose reference makes CUDA inputs runs on the CPU under the CUDA emulation (never
    a failure for want of a GPU), and the report says it was emulated."""
    ref = write(tmp_path, "ref.py", REF.format(device=".cuda()"))
    sub = write(tmp_path, "sub.py", "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
                                    "        return x.clamp_min(0)\n")  # fmt: skip
    code, out, _ = kdiag_run(str(sub), "--reference", str(ref), "--probes", "none", "--ladder", "none")
    assert out is not None
    assert (code, out["verdict"], out["cannot_run"]) == (0, "pass", None), out
    assert any(n.startswith("CUDA emulated on the CPU for this target: .cuda()") for n in out["notes"]), out["notes"]
    # the same submission computing the wrong thing still fails: the emulation does not hide the comparison
    bad = write(tmp_path, "bad.py", "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
                                    "        return x.clamp_min(0) + 1\n")  # fmt: skip
    code, out, _ = kdiag_run(str(bad), "--reference", str(ref), "--probes", "none", "--ladder", "none")
    assert out is not None and out["verdict"] == "fail" and code != 0, out


def test_torch_asking_for_cuda_home_is_traced_to_the_cpu_build(write, tmp_path: Path, kdiag_run) -> None:
    """load_inline on a CPU build of torch says CUDA_HOME is not set, whatever the toolkit; the source here is
    an f-string, so kdiag cannot compile it first and the submission runs."""
    ref = write(tmp_path, "ref.py", REF.format(device=""))
    sub = write(
        tmp_path,
        "sub.py",
        """
        import torch
        from torch.utils.cpp_extension import load_inline

        N = 256
        src = f"__global__ void k(float* x) {{ x[0] = {N}; }}"
        mod = load_inline(name="k", cpp_sources="void f();", cuda_sources=src, functions=["f"])


        class ModelNew(torch.nn.Module):
            def forward(self, x):
                return x
        """,
    )
    code, out, _ = kdiag_run(str(sub), "--reference", str(ref), "--probes", "none", "--ladder", "none")
    assert out is not None
    assert (code, out["verdict"], out["category"]) == (4, "no-result", "environment"), out
    cpu_build = NR.torch_cpu_build(json.loads((Path(out["run_dir"]) / "env.json").read_text()))
    if cpu_build is not None:  # this machine's torch: the note names the real cause
        assert out["failure_mode"] == "library-missing"
        assert any("the cause is the CPU build of torch" in n for n in out["notes"]), out["notes"]
    assert any("CUDA source not checked: load_inline cuda_sources" in n for n in out["notes"])


def test_a_command_that_needs_a_gpu_is_no_result(kdiag_run) -> None:
    import sys

    code, out, _ = kdiag_run("--ladder", "none", "--", sys.executable, "-c", "import torch; torch.zeros(1).cuda()")
    assert out is not None
    assert (code, out["verdict"], out["category"]) == (4, "no-result", "environment"), out
    assert out["cannot_run"].startswith("cannot run here: no GPU")


def test_a_torch_source_is_not_compiled_without_torch_headers(tmp_path: Path, monkeypatch) -> None:
    """Without torch's headers a compile error would be the machine's, never the kernel's: nothing is compiled."""
    from diagnose.run import compile_check as CC

    monkeypatch.setattr(CC, "torch_include_dirs", lambda snapshot: [])

    def run(*args: object) -> None:
        raise AssertionError("nothing may be compiled")

    found = S.extract_text('m = load_inline("m", "int f();", "__global__ void k() {}")')
    check = CC.check(found, tmp_path, "sm_90", "nvcc", None, run, cxx="c++")
    assert (check.compiled, check.ok, check.failed) == ((), False, None)
    assert check.listed[0] == "load_inline cuda_sources (line 1): includes torch, and torch's headers were not found"


def test_the_host_cxx_is_checked_only_after_the_cuda_source_compiles(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from diagnose.run import compile_check as CC

    calls: list[list[str]] = []

    def run(argv: list[str], folder: Path, timeout: float) -> object:
        calls.append(argv)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "out").write_text("")
        (folder / "err").write_text("k.cu(1): error: bad\n" if argv[0] == "nvcc" and fail else "")
        code = 1 if argv[0] == "nvcc" and fail else 0
        return SimpleNamespace(stdout=folder / "out", stderr=folder / "err", exit_code=code, timed_out=False)

    found = S.extract_text('m = load_inline("m", "int f();", "__global__ void k(float* x) {}", ["f"])')
    fail = True
    check = CC.check(found, tmp_path / "a", "sm_90", "nvcc", None, run, cxx="c++")
    assert [a[0] for a in calls] == ["nvcc"] and check.failed is not None and check.failed.source.lang == "cuda"
    fail, calls[:] = False, []
    check = CC.check(found, tmp_path / "b", "sm_90", "nvcc", None, run, cxx="c++")
    assert [a[:2] for a in calls] == [["nvcc", "-cubin"], ["c++", "-fsyntax-only"]] and check.ok
    assert (tmp_path / "b" / "source1_load_inline.cpp").read_text().startswith("#include <torch/extension.h>")
    assert check.summary().endswith("; its host C++ (the bindings) compiles")
    calls[:] = []
    check = CC.check(found, tmp_path / "c", "sm_90", "nvcc", None, run)  # no host compiler: listed
    assert [a[0] for a in calls] == ["nvcc"] and check.listed == (
        "load_inline cpp_sources (line 1): host C++, not compiled (no host compiler)",
    )


def test_a_header_the_machine_lacks_stops_the_check_without_blaming_the_kernel() -> None:
    from diagnose.run import compile_check as CC

    src = Path("/r/build/source0_load_inline.cu")
    log = (
        "In file included from /v/torch/include/ATen/cuda/CUDAContext.h:4,\n"
        "                 from /r/build/source0_load_inline.cu:6:\n"
        "/v/torch/include/ATen/cuda/CUDAContextLight.h:10:10: fatal error: cusparse.h: No such file or directory\n"
    )
    assert CC.missing_header(log, src) == "cusparse.h (included by ATen/cuda/CUDAContextLight.h)"
    own = '/r/build/source0_load_inline.cu(2): catastrophic error: cannot open source file "mine.cuh"\n'
    assert CC.missing_header(own, src) is None  # the submission's own include: its error
    assert CC.missing_header('/r/build/source0_load_inline.cu(2): error: identifier "x" is undefined', src) is None
    # a GPU library's public header the source includes itself (a real cuBLASLt submission, nvcc 13 on this machine,
    # whose toolkit has no cuBLAS component): the machine lacks it, the source is not at fault
    lt = "/r/build/source0_load_inline.cu:6:10: fatal error: cublasLt.h: No such file or directory\n"
    assert CC.missing_header(lt, src) == "cublasLt.h (a GPU library's header, which the source includes)"


STUB = """
import json, sys
from pathlib import Path
from harness import extension_stub
out = Path(sys.argv[1])
extension_stub.install(out)
from torch.utils.cpp_extension import load_inline
try:
    load_inline(name="m", cpp_sources="", cuda_sources="__global__ void k() {}")
except RuntimeError as e:
    print(e)
print(json.loads((out / extension_stub.CALLS_FILE).read_text()))
"""


def test_the_extension_stub_records_a_build_and_refuses_it_at_once(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", STUB, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    said, calls = out.stdout.strip().splitlines()
    assert said.startswith("kdiag: torch.utils.cpp_extension.load_inline not run: no GPU")
    assert calls == "[\"torch.utils.cpp_extension.load_inline('m')\"]"


STAND_IN = """
import json, sys
from pathlib import Path
from harness import extension_stub
out = Path(sys.argv[1])
extension_stub.install(out, stand_in=True)
from torch.utils.cpp_extension import load_inline
m = load_inline(name="m", cpp_sources="", cuda_sources="__global__ void k() {}")
f = m.fused  # looked up and kept, as __init__ keeps it: nothing recorded yet
print((out / extension_stub.USED_FILE).exists())
try:
    f(1)
except RuntimeError as e:
    print(e)
print(json.loads((out / extension_stub.USED_FILE).read_text()))
"""


def test_a_stand_in_for_a_module_built_at_import_refuses_only_a_call(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", STAND_IN, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    before, said, used = out.stdout.strip().splitlines()
    assert before == "False" and said.startswith("kdiag: m.fused is the CUDA extension's function")
    assert used == "['m.fused']"  # the list json.loads read back, printed


def test_a_forward_that_may_skip_its_extension_is_told_from_one_that_calls_it() -> None:
    # a leaderboard's Gemini 3 Flash submission: the module is built at import, the forward calls it only in eval
    # mode (KernelBench never calls eval()); Gemini 3 Pro's straight forward on the same problem calls it
    kb = ROOT / "corpus" / "kernelbench"
    assert S.forward_may_skip_build(kb / "real_kblh_g3flash_l2_41_training_fallback" / "submission.py")
    assert not S.forward_may_skip_build(kb / "real_kblh_g3pro_l2_41_m_sqrt1_2_macro" / "submission.py")
    assert not S.forward_may_skip_build(kb / "real_kblh_g3pro_l2_2_fused_clamp_inplace" / "submission.py")


def test_a_build_is_at_import_unless_every_call_sits_in_a_function(tmp_path: Path) -> None:
    sub = tmp_path / "s.py"
    lazy = "from torch.utils.cpp_extension import load_inline\nclass M:\n    def f(self):\n        return load_inline(name='m')\n"
    sub.write_text(lazy)
    assert S.built_at_import(sub) is False
    sub.write_text(lazy + "mod = load_inline(name='n')\n")
    assert S.built_at_import(sub) is True
    sub.write_text("import triton.language as tl\nx = tl.load(p, m)\nimport torch\ny = torch.load('f')\n")
    assert S.built_at_import(sub) is None  # Triton's, torch's loads build nothing
    sub.write_text("from torch.utils import cpp_extension\nmod = cpp_extension.load('m', ['k.cu'])\n")
    assert S.built_at_import(sub) is True


#: the load_inline call of corpus/kernelbench/cuda_compiles, character for character: the compile check's commands and
#: sources are that case's, so the session compiles them once for both (tests/conftest.py, compile_once)
CUDA_COMPILES = (ROOT / "corpus" / "kernelbench" / "cuda_compiles" / "submission.py").read_text()
LAZY_BUILD = (
    "import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n"
    + CUDA_COMPILES[CUDA_COMPILES.index('cuda_source = """') : CUDA_COMPILES.index("scaled_relu = load_inline(")]
    + """

class ModelNew(nn.Module):
    def forward(self, x):
        if x.is_cuda and torch.cuda.is_available():
            ext = load_inline(name="scaled_relu", cpp_sources=cpp_source, cuda_sources=cuda_source,
                              functions=["scaled_relu"], verbose=False)
            return ext.scaled_relu(x.contiguous(), 2.0)
        return torch.relu(x) * 2


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
"""
)

LAZY_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
"""


@pytest.mark.toolkit
def test_a_lazy_extension_the_forward_does_build_leaves_the_compile_check_as_the_answer(
    tmp_path: Path, kdiag_run
) -> None:
    # the forward asks for a GPU first (x.is_cuda, torch.cuda.is_available()), which the run says there is, and
    # builds an extension that compiles: no-result, as a GPU run would take that path (a CPU fallback kdiag took
    # instead would have been called a pass)
    sub, ref = tmp_path / "submission.py", tmp_path / "reference.py"
    sub.write_text(LAZY_BUILD)
    ref.write_text(LAZY_REFERENCE)
    code, rep, err = kdiag_run(str(sub), "--reference", str(ref), "--probes", "none")
    assert rep is not None, err
    assert (code, rep["verdict"]) == (4, "no-result"), rep
    assert any("builds its extension" in n for n in rep["notes"]), rep["notes"]


@pytest.mark.toolkit
def test_a_build_that_fails_everywhere_and_is_caught_leaves_the_fallback_as_the_answer(
    tmp_path: Path, kdiag_run
) -> None:
    # corpus/kernelbench/real_cl1_l1_19_relu_inplace without its fast path: the forward builds its extension, whose
    # bindings name an extern "C" kernel load_inline's main.cpp never declares (cpp_sources=""): the build fails on
    # a GPU too, the submission catches it and returns torch.relu(x), which is what the harness measures there
    case = ROOT / "corpus" / "kernelbench" / "real_cl1_l1_19_relu_inplace"
    text = (case / "submission.py").read_text()
    fast = (
        "        if not x.requires_grad:\n            return torch.relu_(x)  # In-place operation directly on input\n"
    )
    assert fast in text
    sub = tmp_path / "submission.py"
    sub.write_text(text.replace(fast, ""))
    code, rep, err = kdiag_run(str(sub), "--reference", str(case / "reference.py"), "--probes", "none")
    assert rep is not None, err
    assert (code, rep["verdict"]) == (0, "pass"), rep
    said = [n for n in rep["notes"] if "cannot be built or loaded on any machine" in n]
    assert said and "optimized_relu_kernel" in said[0], rep["notes"]
    assert "its bindings do not compile" in rep["checked"][0], rep["checked"]
