"""The compile check's second compile, with kdiag's stand-ins for the CUDA math libraries' headers that torch's
CUDA headers include (diagnose/data/cuda_stand_in/): when it runs, what it is given, and whose its errors are.

The nvcc logs are real (tests/run/fixtures/stand_in/provenance.yaml says how they were captured); the compiles
themselves are replayed, so these tests run no compiler.  corpus/kernelbench/cuda_stream_guard and
cuda_context_source_error run the real compiles end to end.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

from diagnose.run import compile_check as CC
from diagnose.run import cuda_sources as S

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stand_in"
#: the real first compile's stop (tests/fixtures/compiler/nvcc-torch-header-needs-cusparse.source.yaml)
CUSPARSE = (ROOT / "tests" / "fixtures" / "compiler" / "nvcc-torch-header-needs-cusparse.log").read_text()
SOURCE = """
m = load_inline("m", "torch::Tensor f(torch::Tensor x);", '''
#include <ATen/cuda/CUDAContext.h>
__global__ void k(float* x) { x[0] = 1.f; }
''', ["f"])
"""
PTXAS = "ptxas info    : Used 10 registers, used 0 barriers\n"


def _replay(logs: list[str], calls: list[list[str]]):
    """A child runner that answers each compile with the next log (exit 1 unless it is ptxas's report)."""

    def run(argv: list[str], folder: Path, timeout: float) -> object:
        calls.append(argv)
        folder.mkdir(parents=True, exist_ok=True)
        log = logs[len(calls) - 1]
        (folder / "out").write_text("")
        (folder / "err").write_text(log)
        code = 0 if log.startswith("ptxas") or not log else 1
        return SimpleNamespace(stdout=folder / "out", stderr=folder / "err", exit_code=code, timed_out=False)

    return run


def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_the_stand_ins_say_what_they_are_and_declare_no_function() -> None:
    files = sorted(p.relative_to(CC.STAND_IN_DIR).as_posix() for p in CC.STAND_IN_DIR.rglob("*.h"))
    assert files == ["c10/cuda/impl/cuda_cmake_macros.h", "cublasLt.h", "cublas_v2.h", "cusolverDn.h",
                     "cusolver_common.h", "cusparse.h"]  # fmt: skip
    for name in files:
        text = (CC.STAND_IN_DIR / name).read_text()
        assert text.startswith("/* kdiag stand-in for ") and "README.md" in text, name
        assert name.startswith("c10/") or "documentation" in text, name  # where its declarations come from
        assert not re.search(r"\w+\s*\([^)]*\)\s*;", text), name  # handle and status types only
    assert CC.stand_in_header(CUSPARSE) == "cusparse.h"
    assert CC.stand_in_header('s.cu(2): catastrophic error: cannot open source file "cufft.h"') is None


def test_a_clean_compile_with_the_stand_ins_is_a_clean_compile_that_says_so(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    found = S.extract_text(SOURCE)
    check = CC.check(found, tmp_path, "sm_90", "nvcc", None, _replay([CUSPARSE, PTXAS, ""], calls), cxx="c++")
    first, second, host = calls
    assert first[0] == "nvcc" and "-idirafter" not in " ".join(first)
    # the stand-ins come after every real include folder (-idirafter), and the source stays last
    assert second == [*first[:-1], "-Xcompiler", f"-idirafter,{CC.STAND_IN_DIR}", first[-1]]
    assert host[:2] == ["c++", "-fsyntax-only"]
    assert check.ok and check.failed is None and check.incomplete is None
    assert check.cuda[0].stood_in == "cusparse.h (included by ATen/cuda/CUDAContextLight.h)"
    assert check.cuda[0].registers == 10
    assert "cusparse.h and the other CUDA math libraries' headers torch's headers include were stood in by " \
        "kdiag's declarations (calls into those libraries were not checked)" in check.summary()  # fmt: skip


def test_an_error_in_the_source_s_own_code_is_the_source_s(tmp_path: Path) -> None:
    own = _fixture("nvcc-stand-in-own-error.log")
    found = S.extract_text(SOURCE)
    check = CC.check(found, tmp_path, "sm_90", "nvcc", None, _replay([CUSPARSE, own], []))
    bad = check.failed
    assert bad is not None and bad.missing is None and bad.stood_in is not None
    assert 'error: identifier "alpah" is undefined' in bad.log and "cusparse.h" not in bad.log


def test_a_call_into_a_library_the_stand_ins_leave_out_is_not_the_source_s(tmp_path: Path) -> None:
    lib = _fixture("nvcc-stand-in-cublas-calls.log")
    own, other = CC.stand_in_errors(lib, Path("source0_load_inline.cu"))
    assert own == [] and len(other) == 7 and any('"cublasSgemm" is undefined' in e for e in other)
    found = S.extract_text(SOURCE)
    check = CC.check(found, tmp_path, "sm_90", "nvcc", None, _replay([CUSPARSE, lib], []))
    assert check.failed is None and not check.ok
    stopped = check.incomplete
    assert stopped is not None and stopped.missing == "cusparse.h (included by ATen/cuda/CUDAContextLight.h)"
    assert stopped.unchecked is not None
    assert stopped.unchecked.endswith('source0_load_inline.cu(76): error: identifier "cublasCreate" is undefined')
    assert stopped.log == CUSPARSE  # the record is the first compile's stop at the header


def test_a_source_that_names_what_the_stand_ins_leave_out_is_not_compiled_with_them(tmp_path: Path) -> None:
    """The cuBLAS submission of the fixture above: its calls would stop the second compile, so it is not run."""
    calls: list[list[str]] = []
    found = S.extract(ROOT / "corpus" / "kernelbench" / "real_gep_mgs_v3_cublas_epilogue" / "submission.py")
    check = CC.check(found, tmp_path, "sm_90", "nvcc", None, _replay([CUSPARSE], calls))
    assert len(calls) == 1 and check.failed is None
    stopped = check.incomplete
    assert stopped is not None and stopped.unchecked is not None
    assert stopped.unchecked.startswith("the source names CUBLAS_DEFAULT_MATH, CUBLAS_OP_N, CUBLAS_OP_T ...")
    assert "cublasSgemm" in CC.undeclared_library_names(found.sources[0].text)


def test_whose_errors_under_the_stand_ins() -> None:
    src = Path("source0_load_inline.cu")
    # an error in the source's own line that quotes a library call is not blamed on the source
    mixed = 'b/source0_load_inline.cu(9): error: identifier "n" is undefined\n    cublasSgemm(h, n);\n    ^\n'
    assert CC.stand_in_errors(mixed, src) == ([], ['b/source0_load_inline.cu(9): error: identifier "n" is undefined'])
    # gcc's form (the host C++ check, real output: a note that points into torch's headers is not an error)
    gcc = CC.stand_in_errors(_fixture("gcc-stand-in-host-own-error.log"), Path("source1_load_inline.cpp"))
    assert gcc == (["<run>/build/source1_load_inline.cpp:6:33: error: ‘nn’ was not declared in this scope; "
                    "did you mean ‘torch::nn’?"], [])  # fmt: skip
    # an error located in torch's headers, and a header still missing
    torch = '/v/torch/include/ATen/cuda/Exceptions.h(60): error: identifier "x" is undefined\n'
    assert CC.stand_in_errors(torch, src)[0] == []
    cudss = "b/source0_load_inline.cu:3:10: fatal error: cufft.h: No such file or directory\n"
    assert CC.stand_in_errors(cudss, src)[0] == []
