"""A non-finite float constant as a code generator prints it (diagnose/data/catalogue/generated-nonfinite-literal.yaml):
`inff` in generated CUDA source is the generator's bug, while the bare `inf` of a project's own header stays the
source's error."""

from __future__ import annotations

from tests.core.corpus_logs import corpus_log, decided


def test_cupyx_jit_inff_is_the_generators_bug() -> None:
    # corpus/holdout19 h19b-cupy-jit-inf-nan-undefined-identifier (cupy/cupy#8696, fixed in cupyx.jit by #8707)
    text = corpus_log("holdout19", "h19b-cupy-jit-inf-nan-undefined-identifier")
    assert decided(text) == ("environment", "compiler-bug", "generated-source-nonfinite-literal")


def test_inff_outranks_cupys_source_error_family() -> None:
    # apache/tvm#12566's line under CuPy's CompileException head: the name decides, not the tool that compiled it
    text = 'cupy.cuda.compiler.CompileException: /tmp/tmpr1n6rqid/my_kernel.cu(331): error: identifier "inff" is undefined\n'
    assert decided(text)[2] == "generated-source-nonfinite-literal"


def test_a_bare_inf_in_a_projects_header_is_the_source() -> None:
    # alexandrosstergiou/adaPool#10: the project's limits.cuh used `inf`; fixed there with INFINITY
    text = 'CUDA/limits.cuh(119): error: identifier "inf" is undefined\n'
    assert decided(text)[:2] == ("kernel-logic", "compile-source-error")
