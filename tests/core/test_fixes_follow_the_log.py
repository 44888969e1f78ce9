"""Fixes that follow what the log shows (an expert review of the twenty-fourth set): the cause the log's own
figures and paths support leads, a number is quoted as the log printed it, and a step the versions in the log
rule out is not offered. Each family is checked on the reviewed case and on another wording."""

from __future__ import annotations

from diagnose.collectors import compiler, cuda_errors, log_words
from tests.core.corpus_logs import classify_text, corpus_log, finding_of


def _best(text: str):  # type: ignore[no-untyped-def]
    report = classify_text(text)
    assert report.diagnosis is not None and report.diagnosis.findings
    return report.diagnosis.findings[0]


def test_a_cudnn_handle_with_ample_free_memory_leads_with_the_version() -> None:
    # jax-ml/jax#22626: "Memory usage: 2624061440 bytes free" beside the handle that failed (jax 0.4.13 on cuDNN 9)
    log = corpus_log("holdout24", "h24b-jax-0413-cudnn9-handle-internal-error")
    f = finding_of(log, "concept-library-handle-create-failed")
    assert 2 in [c.line for c in f.evidence]
    assert f.fix.startswith("Compare the cuDNN")
    assert "free of" in f.what and "memory is not what failed" in f.why
    # TensorFlow's wording of the handle, without the figures: memory still leads
    tf = corpus_log("holdout5", "tf-rtx2070-cudnn-handle-internal-error")
    g = finding_of(tf, "concept-library-handle-create-failed")
    assert g.fix.startswith("First `nvidia-smi`")


def test_memcpy_undeclared_in_glibc_string_h_names_force_inlines() -> None:
    # usnistgov/hiperc#63 (nvcc for sm_35); the same message in other projects' builds (NVlabs/xmp#4)
    f = _best(corpus_log("holdout24", "h24a-hiperc-memcpy-not-declared-nvcc"))
    assert f.rule == "nvcc-error-in-toolkit-headers"
    assert "-D_FORCE_INLINES" in f.fix and "2.41" not in f.fix + f.why
    assert compiler.glibc_inline_memcpy("/usr/include/string.h", "‘memmove’ was not declared in this scope")
    assert not compiler.glibc_inline_memcpy("/usr/include/string.h", "expected ‘;’ before ‘}’ token")


def test_libdevice_not_found_does_not_say_the_toolkit_is_missing() -> None:
    # conda-forge/jaxlib-feedstock#283: the toolkit was installed; XLA looked elsewhere
    f = _best(corpus_log("holdout24", "h24b-jaxlib-conda-libdevice-build-prefix"))
    assert f.rule == "xla-libdevice-not-found"
    assert f.fix.startswith("Point XLA at") and f.fix.index("--xla_gpu_cuda_data_dir") < f.fix.index("pip install")
    assert "is missing" not in f.why
    # the prefix conda-build gives a package's build tools, as a path the package kept
    path = "/home/conda/feedstock_root/build_artifacts/jaxlib_1725045424189/_build_env/targets/x86_64-linux/nvvm"
    assert log_words.conda_build_prefix(path) == path.rsplit("/_build_env", 1)[0] + "/_build_env"
    assert log_words.conda_build_prefix("/tmp/conda-bld/foo_1/_h_env_placehold_placehold/lib").endswith(
        "_h_env_placehold_placehold"
    )
    assert log_words.conda_env("/opt/conda/lib/python3.10/site-packages/jax") == "/opt/conda"


def test_the_pytorch_release_is_read_where_the_log_shows_it() -> None:
    # torch.utils.collect_env's lines (its env_info_fmt) and a wheel's local version tag
    assert log_words.torch_versions("PyTorch version: 1.6.0\nCUDA used to build PyTorch: 10.2\n") == ("1.6.0", "10.2")
    assert log_words.torch_versions("torch 1.13.1+cu117") == ("1.13.1", "11.7")
    # NVlabs/nvdiffrast#75 shows neither: nothing is said about them
    f = _best(corpus_log("holdout24", "h24b-nvdiffrast-error209-old-pytorch"))
    assert f.rule == "cuda-no-kernel-image" and "The log shows PyTorch" not in f.fix


def test_flash_attention_2_is_not_offered_below_sm80() -> None:
    # Meituan-AutoML/MobileVLM#40: flash-attn 1.x's message on an RTX 2080 Ti
    f = _best(corpus_log("holdout24", "h24a-mobilevlm-fa-bwd-headdim-2080ti"))
    assert "64 or less" in f.fix and "needs sm_80" in f.fix and "scaled_dot_product_attention" in f.fix


def test_invalid_device_function_puts_a_newer_toolkit_first() -> None:
    # NVIDIA/nvidia-docker#346: CUDA 7.5's libraries on a Pascal GPU
    f = _best(corpus_log("holdout24", "h24b-nvidia-docker-cuda75-pascal-no-ptx"))
    assert f.fix.index("CUDA 8") < f.fix.index("rebuild with")


def test_a_legacy_code_is_quoted_as_printed() -> None:
    # pytorch/pytorch#3865: THC's error=48 (CUDA 9), never 209
    f = _best(corpus_log("holdout24", "h24a-pytorch-source-build-missing-v100-arch"))
    assert "error 48" in f.what and "209" not in f.what
    # Caffe's check of the same era (daijifeng001/MNC#19)
    c = cuda_errors.parse(corpus_log("holdout22", "h22a-mnc-demo-gpu-id-not-set-nms"))
    assert c is not None and (c.code, c.code_old_numbering) == (77, True)
