"""A `#error` directive in an installed library's header is that library's configuration check refusing the
build (environment); the CUDA toolkit's own `#error` (cublas.h with cublas_v2.h) and a project's own are not."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import classify_text, corpus_log, decided

RULE = "compile-error-directive-in-installed-library"


@pytest.mark.parametrize(
    "text",
    [
        corpus_log("holdout17", "h17a-kokkos-rdc-desul-mismatch"),
        # captured here: nvcc 13.0 -rdc=true -I.local/include -c a.cu, a header under .local/include guarding
        # an `#error` with `#ifdef __CUDACC_RDC__`
        "In file included from a.cu:1:\n"
        ".local/include/mylib/cfg.hpp:2:2: error: #error Relocatable device code mode incompatible with this "
        "configuration\n",
    ],
)
def test_error_directive_in_installed_header_is_the_build_configuration(text: str) -> None:
    assert decided(text) == ("environment", "build-config-mismatch", RULE)


@pytest.mark.parametrize(
    "text",
    [
        # starpu-runtime/starpu#9: the toolkit's header, tripped by the project's own includes
        '/usr/local/cuda/include/cublas_v2.h:59:2: error: #error "It is an error to include both cublas.h and '
        'cublas_v2.h"\n',
        # captured here: nvcc 13.0 -c b.cu, b.cu including the project's own src/kernels/config.h whose `#if`
        # on BLOCK guards an `#error`
        "In file included from b.cu:1:\nsrc/kernels/config.h:3:2: error: #error BLOCK must be a power of two\n",
    ],
)
def test_other_error_directives_are_not_this_family(text: str) -> None:
    d = classify_text(text).diagnosis
    assert d is None or all(f.rule != RULE for f in d.findings)
