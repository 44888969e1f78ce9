"""A library's (or the sanitizer's) own bug is a candidate, and a cause a log only exposes is not blamed first:

- a memcheck record inside a vendor library's kernel (CUB, libcu++, cuBLAS, ...) or of a zero-byte access
  offers the library's bug or a sanitizer false positive, with the cross-check (another sanitizer release, the
  test without it), and a zero-byte access is not read as a tail overrun;
- an illegal address in a log that shows more than one GPU checks the devices first, device-mismatch a candidate;
- a wrong result that comes or goes with a toolkit release asks initcheck before blaming the release;
- a framework's loaded-vs-compiled library message asks which installation of the framework ran first.

The logs are development cases of the labelled corpus (holdout28, holdout3), quoted by id."""

from __future__ import annotations

from corpus_logs import classify_text, corpus_log

from diagnose.collectors import location
from diagnose.report import next_check

CUB_ZERO_BYTE = "h28a-cub-warpspeed-scan-shifted-widened-output-oob"
SPARK_MISALIGNED = "h28a-spark-jni-sanitizer-cuda12-false-misaligned"


def _candidates(text: str) -> list[tuple[str, str, str]]:
    report = classify_text(text)
    assert report.diagnosis is not None
    return [(f.category, f.failure_mode, f.rule) for f in report.diagnosis.findings]


def test_a_device_frame_is_the_library_whose_function_it_is_not_its_template_arguments() -> None:
    # CUB's device-wide reduction run with cuDF's operator is CUB's code
    f = location.parse(corpus_log("holdout28", SPARK_MISALIGNED))
    assert f is not None and (f.kind, f.library) == ("library", "CUB/Thrust")
    # a libcu++ PTX wrapper (cuda::ptx::) is CCCL's
    f = location.parse(corpus_log("holdout28", CUB_ZERO_BYTE))
    assert f is not None and (f.kind, f.library) == ("library", "CCCL (libcu++)")
    # a kernel of the user's whose template argument is a libcu++ type stays the user's
    f = location.parse(
        "========= Invalid __global__ read of size 4 bytes\n"
        "=========     at void my_kernel<cuda::std::integral_constant<int, 2>>(float *)+0x30 in my.cu:12\n"
        "=========     by thread (0,0,0) in block (0,0,0)\n"
    )
    assert f is None or f.library != "CCCL (libcu++)"


def test_a_record_in_a_vendor_library_offers_its_bug_or_a_sanitizer_false_positive() -> None:
    for case in (SPARK_MISALIGNED, CUB_ZERO_BYTE):
        cands = _candidates(corpus_log("holdout28", case))
        assert ("environment", "library-bug", "sanitizer-report-in-vendor-library-kernel") in cands, case
    report = classify_text(corpus_log("holdout28", CUB_ZERO_BYTE))
    assert report.diagnosis is not None
    alt = next(f for f in report.diagnosis.findings if f.rule == "sanitizer-report-in-vendor-library-kernel")
    assert alt.fix.startswith("Upgrade the library")
    assert "another compute-sanitizer release" in alt.fix and "without the sanitizer" in alt.fix
    # the check that decides on the misaligned shared read names the sanitizer cross-check too
    check = next_check(classify_text(corpus_log("holdout28", SPARK_MISALIGNED))) or ""
    assert "another compute-sanitizer release" in check


def test_a_zero_byte_access_is_not_a_tail_overrun_and_the_fix_leads_with_the_library() -> None:
    report = classify_text(corpus_log("holdout28", CUB_ZERO_BYTE))
    assert report.category == "kernel-logic"
    best = report.diagnosis.best if report.diagnosis else None
    assert best is not None and best.rule != "sanitizer-oob-just-past-end"
    assert best.fix.startswith("The failing kernel is inside CCCL")


def test_an_illegal_address_with_more_than_one_gpu_checks_the_devices_first() -> None:
    text = corpus_log("holdout3", "llamacpp-p40-illegal-address-bisected-commit")
    assert ("runtime-assumption", "device-mismatch", "cuda-illegal-address-on-multi-gpu-run") in _candidates(text)
    check = next_check(classify_text(text)) or ""
    assert check.index("CUDA_VISIBLE_DEVICES=0") < check.index("CUDA_LAUNCH_BLOCKING=1")
    # one GPU in the log: the usual order, no device-mismatch candidate
    bare = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    assert all(mode != "device-mismatch" for _, mode, _ in _candidates(bare))
    check = next_check(classify_text(bare)) or ""
    assert check.index("CUDA_LAUNCH_BLOCKING=1") < check.index("CUDA_VISIBLE_DEVICES=0")
    # a value the GPU code computed is not the caller's
    assert "one the GPU code computed (a NaN or inf from float arithmetic) is the kernel's" in check


def test_a_wrong_result_that_comes_with_a_release_asks_initcheck_before_blaming_it() -> None:
    check = next_check(classify_text(corpus_log("holdout28", "h28a-cuml-arima-kalman-uninit-nan"))) or ""
    release = check.index("release the project states it needs")
    assert check.index("--tool initcheck` (and memcheck) is clean on the failing release", release) < check.index(
        "it is that release", release
    )


def test_a_loaded_vs_compiled_cudnn_asks_which_framework_ran_first() -> None:
    report = classify_text(corpus_log("holdout28", "h28b-tf-cudnn-runtime-older-build-wrong-env"))
    assert report.category == "environment"
    best = report.diagnosis.best if report.diagnosis else None
    assert best is not None and best.fix.startswith("First check which TensorFlow ran")
    assert "tf.__file__" in best.fix
