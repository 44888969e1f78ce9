"""diagnose.collectors.pytraceback over real tracebacks (tests/fixtures/pytraceback, each with a .source.yaml)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from diagnose.collectors.pytraceback import parse

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "pytraceback"
REAL_DEV = Path(__file__).resolve().parents[2] / "corpus" / "public" / "real-dev.yaml"


def load(name: str) -> str:
    return (FIX / name).read_text(encoding="utf-8")


def real_dev(case_id: str) -> str:
    cases = {c["id"]: c["log"] for c in yaml.safe_load(REAL_DEV.read_text())}
    return cases[case_id]


def test_every_fixture_has_a_sidecar() -> None:
    missing = []
    for log in sorted(FIX.glob("*.log")):
        side = log.with_name(log.stem + ".source.yaml")
        data = yaml.safe_load(side.read_text()) if side.exists() else None
        if not data or not ({"captured", "origin"} & set(data)):
            missing.append(log.name)
    assert not missing, missing


def test_plain_traceback_without_user_frame() -> None:
    f = parse(load("torch_nocuda.log"))
    assert f is not None
    assert (f.exc_type, f.exc_qualname) == ("AssertionError", "AssertionError")
    assert f.exc_message == "Torch not compiled with CUDA enabled"
    assert f.frame_count == 2 and f.frames[-1].func == "_lazy_init"
    assert f.user_file is None  # <string> and site-packages only
    assert not f.chained
    assert f.lines == (5,)


def test_during_handling_chain() -> None:
    f = parse(load("nvml_chain.log"))
    assert f is not None and f.chained
    assert f.exc_types == ("OSError", "NVMLError_LibraryNotFound")
    assert f.exc_qualname == "pynvml.NVMLError_LibraryNotFound"
    assert f.exc_message == "NVML Shared Library Not Found"
    assert f.exc_messages[0].startswith("libnvidia-ml.so.1: cannot open shared object file")
    assert f.user_file is None  # pynvml, ctypes (stdlib) and <string>


def test_direct_cause_chain_with_multiline_message() -> None:
    f = parse(load("triton_arange.log"))
    assert f is not None and f.chained
    assert f.exc_types == ("ValueError", "CompilationError")
    assert f.exc_qualname == "triton.compiler.errors.CompilationError"
    assert f.exc_message is not None
    assert f.exc_message.startswith("at 2:11:\ndef copy(x_ptr, y_ptr, n):")
    assert f.exc_message.endswith("arange's range must be a power of 2")
    assert (f.user_file, f.user_line, f.user_func) == ("/tmp/cap/bad_kernel.py", 14, "<module>")


def test_rank_prefixed_traceback_with_stray_spaces() -> None:
    f = parse(load("ascend_rank0_prefixed.log"))
    assert f is not None
    assert f.exc_type == "AttributeError"
    assert f.exc_message == (
        "'AcceleratorState' object has no attribute 'mixed_precision'. Did you mean: '_mixed_precision'?"
    )
    # the innermost frame outside site-packages is llamafactory's own trainer
    assert (f.user_file, f.user_line, f.user_func) == ("/app/src/llamafactory/train/sft/trainer.py", 67, "__init__")
    assert f.frame_count == 10  # the frame whose line had a stray leading space is kept


def test_cython_frames_of_installed_packages_are_not_user_code() -> None:
    f = parse((FIX.parent / "cuda_errors" / "cupy_nodriver.log").read_text())
    assert f is not None
    assert f.exc_qualname == "cupy_backends.cuda.api.runtime.CUDARuntimeError"
    assert f.user_file is None  # cupy/_core/core.pyx etc. are the library


def test_timestamped_prefix_and_interleaved_ranks() -> None:
    # excerpt of vllm-project/vllm-ascend#516 (issue body), trimmed to its first and last frames
    log = (
        "ERROR 04-14 13:53:52 worker_base.py:593] Error executing method 'load_model'.\n"
        "ERROR 04-14 13:53:52 worker_base.py:593] Traceback (most recent call last):\n"
        'ERROR 04-14 13:53:52 worker_base.py:593]   File "/vllm-ascend/vllm_ascend/worker.py", line 190, in load_model\n'
        "ERROR 04-14 13:53:52 worker_base.py:593]     self.model_runner.load_model()\n"
        'ERROR 04-14 13:53:52 worker_base.py:593]   File "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py", line 310, in _lazy_init\n'
        'ERROR 04-14 13:53:52 worker_base.py:593]     raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "ERROR 04-14 13:53:52 worker_base.py:593] AssertionError: Torch not compiled with CUDA enabled\n"
    )
    f = parse(log)
    assert f is not None
    assert f.exc_message == "Torch not compiled with CUDA enabled"
    assert (f.user_file, f.user_line) == ("/vllm-ascend/vllm_ascend/worker.py", 190)


@pytest.mark.parametrize(
    ("case_id", "qualname"),
    [
        ("svox2-launch-bounds-2080ti", "RuntimeError"),
        ("triton-grid-y-65536-invalid-value", "RuntimeError"),
        ("dest3d-chunk-scan-smem", "triton.runtime.errors.OutOfResources"),
        ("triton-puzzles-arange-200", "ValueError"),
        ("wan2gp-attrsdescriptor-triton-mismatch", "ImportError"),
        ("triton-add-two-pointers", "RuntimeError"),
        ("numba-float-grid-dims", "ctypes.ArgumentError"),
    ],
)
def test_bare_exception_lines_of_real_cases(case_id: str, qualname: str) -> None:
    f = parse(real_dev(case_id))
    assert f is not None and f.exc_qualname == qualname


def test_faceswap_chain_with_elided_frames() -> None:
    # real-dev faceswap-nvml-lib-not-found: frames printed without indentation, "..." between sections
    f = parse(real_dev("faceswap-nvml-lib-not-found"))
    assert f is not None
    assert f.chained
    assert f.exc_types[0] == "OSError"


def test_timestamped_bare_exception() -> None:
    f = parse(real_dev("freetoken-rtx2080ti-smem"))
    assert f is not None
    assert f.exc_qualname == "triton.runtime.errors.OutOfResources"
    assert f.exc_message is not None and f.exc_message.startswith("out of resource: shared memory, Required: 98304")


def test_a_bare_exception_glued_to_prose_in_another_script() -> None:
    # kvcache-ai/ktransformers#1793 (corpus/holdout19): a Chinese sentence runs into the exception's name
    from tests.core.corpus_logs import corpus_log

    f = parse(corpus_log("holdout19", "h19a-ktransformers-fp8-moe-smem-sm89"))
    assert f is not None and f.exc_qualname == "triton.runtime.errors.OutOfResources"
    assert f.exc_message == "out of resource: shared memory"
    # a Latin letter before the name is another word, not a boundary
    assert parse("xValueError: no") is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01\x02 binary junk \xff",
        "Traceback (most recent call last):",
        "Traceback (most recent call last):\n  File",
        "an error occurred: nothing to see",
        "UserWarning: this is only a warning",
        "x" * 100_000,
    ],
)
def test_junk_never_raises(text: str) -> None:
    f = parse(text)
    assert f is None or f.exc_type is None or isinstance(f.exc_type, str)


# Speed is measured by bench/bench_collectors.py; these check the results on large and noisy input
# (a regex that went quadratic would make them hang instead of passing).


def test_a_long_log_without_a_traceback_says_nothing() -> None:
    noise = "".join(f"step {i} loss=0.{i:04d} lr=1e-4 Error-free\n" for i in range(30_000))
    assert parse(noise) is None


def test_noise_before_a_traceback_changes_only_the_line_numbers() -> None:
    for n in (300, 30_000):
        noise = "".join(f"step {i} loss=0.{i:04d} lr=1e-4 Error-free\n" for i in range(n))
        for log in sorted(FIX.glob("*.log")):
            clean = parse(log.read_text(encoding="utf-8"))
            assert clean is not None and clean.exc_type, log.name
            noisy = parse(noise + log.read_text(encoding="utf-8"))
            assert noisy == dataclasses.replace(clean, lines=tuple(k + n for k in clean.lines)), (n, log.name)


JAX_FIX = Path(__file__).resolve().parent.parent / "fixtures" / "jax"


@pytest.mark.parametrize(
    ("name", "qualname", "message"),
    [
        # jax's filtered traceback: the "For simplicity, JAX has removed..." note is not part of the message
        (
            "xla-cpu-out-of-memory",
            "jax.errors.JaxRuntimeError",
            "RESOURCE_EXHAUSTED: Out of memory allocating 70368744177664 bytes.",
        ),
        (
            "pallas-store-dtype-mismatch",
            "ValueError",
            "Invalid dtype for `swap`. Ref dtype: float32. Value dtype: int32.",
        ),
        # chained through JaxStackTraceBeforeTransformation and "The above exception was the direct cause"
        (
            "pallas-triton-unimplemented-sort",
            "NotImplementedError",
            "Unimplemented primitive in Pallas Triton lowering: sort. "
            "Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.",
        ),
    ],
)
def test_jax_tracebacks(name: str, qualname: str, message: str) -> None:
    f = parse((JAX_FIX / f"{name}.log").read_text(encoding="utf-8"))
    assert f is not None
    assert (f.exc_qualname, f.exc_message) == (qualname, message)
    assert f.user_file == f"/tmp/kdiag-capture/jax/{name.replace('-', '_')}.py"
    assert not any("JAX has removed its internal frames" in m for m in f.exc_messages)


def test_jax_note_alone_is_not_a_message() -> None:
    # the CUDA plugin sample ends in a bare AssertionError followed by jax's note
    f = parse((JAX_FIX / "jax-cuda-plugin-no-cuda-libraries.log").read_text(encoding="utf-8"))
    assert f is not None
    assert (f.exc_type, f.exc_message) == ("AssertionError", "")
    assert "Unable to load CUDA. Is it installed?" in f.exc_messages


def test_an_unpack_of_a_tensors_dimensions_is_read_from_the_user_frame() -> None:
    f = parse(load("unpack_dims.log"))
    assert f is not None
    assert (f.exc_type, f.exc_message) == ("ValueError", "too many values to unpack (expected 3)")
    assert (f.user_func, f.unpacks_tensor_dims) == ("depthwise_strides", True)
    other = parse(load("torch_nocuda.log"))
    assert other is not None and not other.unpacks_tensor_dims


#: a GPU MODE test run's printout (corpus/kernelbench-results/results/dgavriloff-amdsk-moe-mxfp4-v174_test.txt):
#: the worker's traceback in multiprocessing's RemoteTraceback, then the parent's, which ends where the pool
#: raises the worker's exception again
WORKER_RERAISED = '''multiprocessing.pool.RemoteTraceback:
"""
Traceback (most recent call last):
  File "/usr/lib/python3.12/multiprocessing/pool.py", line 125, in worker
    result = (True, func(*args, **kwds))
  File "/home/runner/_work/kernelbot/kernelbot/eval.py", line 157, in _run_single_test
    submission_output = custom_kernel(_clone_data(data))
  File "/home/runner/_work/kernelbot/kernelbot/submission.py", line 457, in custom_kernel
    tile_m=_s2_parsed["tile_m"],
TypeError: 'NoneType' object is not subscriptable
"""

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/runner/_work/kernelbot/kernelbot/eval.py", line 166, in run_single_test
    return pool.apply(_run_single_test, (test,))
  File "/usr/lib/python3.12/multiprocessing/pool.py", line 774, in get
    raise self._value
TypeError: 'NoneType' object is not subscriptable
'''


def test_an_exception_re_raised_from_a_worker_is_placed_where_the_worker_raised_it() -> None:
    from diagnose.collectors import location

    f = parse(WORKER_RERAISED)
    assert f is not None and f.exc_type == "TypeError"
    assert (f.user_file, f.user_line, f.user_func) == (
        "/home/runner/_work/kernelbot/kernelbot/submission.py",
        457,
        "custom_kernel",
    )
    loc = location.parse(WORKER_RERAISED)
    assert loc is not None and loc.frame.startswith("/home/runner/_work/kernelbot/kernelbot/submission.py:457")
    # the same parent traceback raising an exception of its own keeps its own frame
    own = WORKER_RERAISED.replace("    raise self._value\nTypeError", "    raise self._value\nRuntimeError")
    g = parse(own.replace('multiprocessing/pool.py", line 774', 'kernelbot/pool.py", line 774'))
    assert g is not None and g.user_file != "/home/runner/_work/kernelbot/kernelbot/submission.py"
