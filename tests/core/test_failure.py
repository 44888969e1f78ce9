"""Is there a failure at all? (diagnose/failure.py) and the `no-failure` status it gives classify."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from diagnose.cli import main
from diagnose.collectors import collect
from diagnose.failure import failure_signs, has_failure

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def case(path: str, cid: str) -> dict:
    return next(c for c in yaml.safe_load((CORPUS / path).read_text()) if c["id"] == cid)


# Single lines written here in the formats the tools print (not copied logs): lines that report a
# failure, and healthy look-alikes that share a word with them.
FAILING_LINES = [
    'a.cu(3): error: identifier "x" is undefined',  # nvcc front end
    "ptxas fatal   : Unresolved extern function 'foo'",
    "FAILED tests/test_k.py::test_tail - AssertionError: 2 != 3",  # pytest -rf
    "========================= 1 failed, 9 passed in 2.10s =========================",
    "Segmentation fault (core dumped)",
    "terminate called after throwing an instance of 'c10::Error'",
    "CUDA error = 999 at main.cu:196 'cudaDeviceSynchronize()'",
    "cudaSuccess (74 vs. 0) misaligned address",
    "AssertionError('cannot reassign constexpr in the loop')",
    "before : [0.9999, 48.2, 50.0, NaN, -0.9999]",
    "make: *** [Makefile:12: saxpy] Error 1",
    "host.cpp:3:9: error: unused variable 'n' [-Werror=unused-variable]",  # gcc with -Werror
    "Misaligned address",  # CUTLASS's Status text (cutlassGetStatusString) quoted alone
    "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CustomCall failed: ...",  # an XLA status, absl's code name
    "res = f(a)  #INTERNAL: operation gpusolverDnCreate(&handle) failed: cuSolver internal error",
    "print(b)  -- WRONG ANSWER",  # a run that says its own output is wrong
    "Attention kernel: wrong results when the query and key lengths differ",
    "  Unexpectedly Failed:   1 (0.48%)",  # LLVM lit's summary: an XFAIL test that failed otherwise
    "FAILED (failures=1, expected failures=1)",  # unittest: one real failure beside an expected one
    "test cases: 3 | 1 passed | 1 failed | 1 failed as expected",  # Catch2
    "RuntimeError: shape mismatch: expected 3, actual 4",
    # NVSHMEM's error macros (nvshmemx_error.h)
    "/opt/nvshmem/src/modules/transport/ibgda/ibgda.cpp:1889: NULL value cannot allocate mlx5dv_devx_uar",
    "src/host/init/init.cu:712: non-zero status: 7 nvshmem detect topo failed",
    # CMake (Source/cmake.cxx)
    "CMake Error in CMakeLists.txt:",
    # a binding's exception named after its C library (pybind11 / Cython modules of NIXL, nvmath)
    "nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND",
    "nvmath.bindings.cudss.cuDSSError: INVALID_VALUE (3)",
    "CMake Generate step failed.  Build files cannot be regenerated correctly.",
    "-- Configuring incomplete, errors occurred!",
    "ERROR:root:CUDA out of memory while allocating the KV cache",  # Python logging's format, a failure stated
    "CRITICAL:tutel:Registering device global rank 1 failed",
    # glibc's assert message cut after its location (a long C++ signature wrapped onto the next lines)
    "python3: /project/third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv2.cpp:760:",
    "  Disposition: Failed",  # CUTLASS's examples and profiler
    "[F C:\\Users\\u\\site-packages\\nvdiffrast\\common\\glutil.cpp:66] wglGetProcAddress() failed for 'glTexImage3D'",
]
HEALTHY_LINES = [
    "========= ERROR SUMMARY: 0 errors",
    "max abs error: 0.0",
    "nvcc -Werror all-warnings -Xptxas -v -o k k.cu",
    "tests/test_k.py::test_error_handling PASSED                              [ 50%]",
    "tests/test_k.py::test_fp16_exact XFAIL (fp16 accumulation loses precision)",
    "===================== 9 passed, 1 xfailed, 2 warnings in 2.10s ======================",
    "error_count=0 warnings=2",
    "k.py:3: UserWarning: an error will be raised for this in a future release",
    "host:1:2 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.",
    "host:1:2 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file",
    "ptxas info    : Used 128 registers, 16 bytes spill stores, 16 bytes spill loads",
    "tests/test_k.py::test_wrong_result_is_reported PASSED                    [ 50%]",
    "I0423 20:52:13.441073 1 status.cc:12] INTERNAL: retrying the call",  # an INFO line that quotes a status
    "checked 4096 outputs against the reference: 0 wrong results",
    "  Expectedly Failed:   1 (0.48%)",  # LLVM lit's summary of XFAIL tests that failed as marked
    "OK (expected failures=1)",  # unittest
    "test cases: 3 | 2 passed | 1 failed as expected",  # Catch2
    "    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 4",  # TorchDynamo's reason to recompile
    "CRITICAL:root:Registering device global rank 1: data_rank = 0, model_rank = 1",  # routine step at CRITICAL
    "stats.train.lastError: 0.0012",  # a printed attribute named like an exception
    "self.lastError: none",
]


@pytest.mark.parametrize("line", FAILING_LINES)
def test_failure_lines_are_failures(line: str) -> None:
    assert has_failure(collect(line + "\n")), line


@pytest.mark.parametrize("line", HEALTHY_LINES)
def test_healthy_look_alikes_are_not(line: str) -> None:
    assert failure_signs(collect(line + "\n")) == (), line


# an autotuner's rejected candidate, in the shapes its source prints (diagnose/collectors/rejected_candidates.py);
# the values are illustrative
INDUCTOR_REJECTED = (
    "AUTOTUNE mm(4096x4096, 4096x4096)\n"
    "E1203 10:11:12.000000 123 torch/_inductor/select_algorithm.py:1800] Runtime error during autotuning: \n"
    "No valid triton configs. OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: "
    "101376. Reducing block sizes or `num_stages` may help.. \n"
    "Ignoring this choice.\n"
    "  triton_mm_4 0.0512 ms 100.0% BLOCK_M=64, BLOCK_N=64\n"
)
HELION_REJECTED = (
    "[0s] Starting PatternSearch with initial_population=100, copies=5\n"
    "[9s] Skipping config with accuracy mismatch: helion.Config(block_sizes=[64, 64, 32], num_warps=4)\n"
    "Tensor-likes are not close!\n\n"
    "Mismatched elements: 4096 / 16384 (25.0%)\n"
    "Greatest absolute difference: 3.5 at index (0, 64) (up to 0.01 allowed)\n"
    "Greatest relative difference: 1.0 at index (0, 64) (up to 0.01 allowed)\n"
    "Use HELION_AUTOTUNE_ACCURACY_CHECK=0 to disable this check.\n\n"
    "[30s] Autotuning complete in 30.1s after searching 500 configs.\n"
)


@pytest.mark.parametrize("log", [INDUCTOR_REJECTED, HELION_REJECTED], ids=["inductor", "helion"])
def test_a_candidate_the_autotuner_set_aside_is_not_the_run_s_failure(log: str) -> None:
    assert failure_signs(collect(log)) == (), log
    ev = collect(log)
    assert ev.numerics is None or not ev.numerics.mismatch
    # the same error outside the block (no closing line: the log may stop where the run did) is read
    opened = log.split("Ignoring this choice.")[0] if "Ignoring" in log else log.split("Use HELION")[0]
    assert has_failure(collect(opened)), opened


def test_exit_status_decides_even_when_the_text_is_quiet() -> None:
    assert failure_signs(collect("step 4 loss 0.95\n", exit_code=1)) == ("exit status 1",)
    assert failure_signs(collect("step 4 loss 0.95\n", signal="SIGKILL")) == ("signal SIGKILL",)
    assert failure_signs(collect("step 4 loss 0.95\n", timed_out=True)) == ("timed out",)
    assert failure_signs(collect("step 4 loss 0.95\n", exit_code=0)) == ()


def test_ptxas_verbose_output_and_a_clean_sanitizer_run_are_healthy() -> None:
    nvcc = case("healthy/captured-nvcc.yaml", "healthy-nvcc-saxpy_ok-sm_80")["log"]
    ev = collect(nvcc, exit_code=0)
    assert ev.compiler is not None and ev.compiler.registers  # the facts were read...
    assert failure_signs(ev) == ()  # ...and are not a failure
    doc = case("healthy/captured-sanitizer.yaml", "healthy-sanitizer-doc-68-api-error-suppression")["log"]
    assert failure_signs(collect(doc)) == ()


def test_a_failed_ptxas_build_is_a_failure() -> None:
    # corpus/captured: a static shared array over 48 KiB, compiled by nvcc 13 (real output)
    cases = yaml.safe_load((CORPUS / "captured" / "cases.yaml").read_text())
    smem = next(c for c in cases if "too much shared data" in str(c.get("log", "")) + str(c.get("stderr", "")))
    ev = collect(str(smem.get("log") or smem.get("stderr")))
    assert any(s.startswith("compiler errors") for s in failure_signs(ev))


def run_jsonl(argv: list[str]) -> list[dict]:
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out=out, err=err) == 0, err.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_classify_says_no_failure_for_a_healthy_log_and_unknown_for_an_undecided_failure(tmp_path: Path) -> None:
    healthy = case("healthy/captured-python.yaml", "healthy-pytest-v-named-after-failures")
    undecided = case("holdout2/issues.yaml", "raytracing-cuda-999-tdr")  # a CUDA error no rule decides
    records = [{"id": "healthy", "log": healthy["log"], "exit_code": 0}, {"id": "undecided", "log": undecided["log"]}]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    got = {r["id"]: r for r in run_jsonl(["classify", str(tmp_path / "r.jsonl"), "--format", "jsonl"])}
    h = got["healthy"]
    assert (h["status"], h["category"], h["failure_mode"], h["rule"], h["confidence"]) == (
        "no-failure",
        "no-failure",
        "no-failure",
        None,
        None,
    )
    assert h["title"].startswith("no failure found") and "--reference" in h["title"]
    assert got["undecided"]["status"] in ("unknown", "diagnosed")
    assert got["undecided"]["status"] != "no-failure"
