"""Families for failures the log decides but kdiag used not to recognise (second pass): Triton's interpreter
reaching a @triton.jit function decorated while it was off, a program that runs nvcc where there is none,
a Ref indexed with the wrong number of indices (JAX's state indexing, early jax-triton Pallas), and XLA's
GPU emitter computing a launch with more blocks than the grid allows.

Each family is tested on the line of a development case (its id and public source in the comment), on at least
one other wording of the same tool (its source, cited in the family's ``messages``), and on nearby lines it must
not take."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import corpus_log, verdict


@pytest.mark.parametrize(
    ("text", "rule", "category"),
    [
        # corpus/holdout2 triton-interpret-set-after-import (triton-lang/triton#5142)
        (
            "triton.runtime.errors.InterpreterError: RuntimeError(\"Cannot call @triton.jit'd outside of the "
            'scope of a kernel")\n',
            "triton-interpreter-reaches-compiled-jit-function",
            "environment",
        ),
        # triton 3.7.1 runtime/interpreter.py: InterpretedFunction.__call__ wraps the helper's InterpreterError
        # again (repr() escapes the inner quote)
        (
            "InterpreterError: InterpreterError('RuntimeError(\"Cannot call @triton.jit\\'d outside of the scope "
            "of a kernel\")')\n",
            "triton-interpreter-reaches-compiled-jit-function",
            "environment",
        ),
        # corpus/holdout8 pycuda-nvcc75-sm61-unsupported (inducer/pycuda#134): pytools prefork's ExecError
        (
            "ExecError: error invoking 'nvcc --preprocess -arch sm_61 -Ifile.cu --compiler-options -P': "
            "[Errno 2] No such file or directory\n",
            "nvcc-executable-not-found",
            "environment",
        ),
        # pytools prefork's ExecError on Python 3, where the OSError's text names the file too
        (
            "pytools.prefork.ExecError: error invoking 'nvcc --cubin -arch sm_86 -I/tmp kernel.cu': "
            "[Errno 2] No such file or directory: 'nvcc'\n",
            "nvcc-executable-not-found",
            "environment",
        ),
        # the same ExecError on Windows (CPython's str() of an OSError with winerror 2)
        (
            "pytools.prefork.ExecError: error invoking 'nvcc.exe --cubin -arch sm_86 kernel.cu': "
            "[WinError 2] The system cannot find the file specified\n",
            "nvcc-executable-not-found",
            "environment",
        ),
        # CPython 3.11 Lib/subprocess.py (_execute_child) without a wrapper, nvcc given by its full path
        (
            "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'\n",
            "nvcc-executable-not-found",
            "environment",
        ),
        # ... and by its bare name: the environment facts' rule, with the same decision
        (
            "FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'\n",
            "env-toolchain-missing",
            "environment",
        ),
        # jax 0.10.2 jax/_src/state/indexing.py (NDIndexer.from_indices_shape), run in a scratch venv
        (
            "ValueError: `indices` must not be longer than `shape`: indices=(0, 1), shape=(8,)\n",
            "jax-ref-indexer-rank-mismatch",
            "kernel-logic",
        ),
        # jax 0.10.2 jax/_src/state/indexing.py (NDIndexer.__post_init__)
        (
            "ValueError: `indices` must be the same length as `Ref` shape.: NDIndexer(indices=(), shape=(8,)).\n",
            "jax-ref-indexer-rank-mismatch",
            "kernel-logic",
        ),
        # openxla/xla xla/service/gpu/launch_dimensions.cc (Unimplemented status, earlier XLA)
        (
            "UNIMPLEMENTED: Kernel launch needs more blocks (4294967296) than allowed by hardware (2147483647).\n",
            "xla-launch-blocks-over-hardware-limit",
            "environment",
        ),
        # openxla/xla xla/service/gpu/fusions/fusion_emitter.cc (the later check of x and y)
        (
            "Kernel 'input_reduce_fusion' launch needs more blocks (4294967296, 1) than allowed by hardware "
            "(2147483647, 65535).\n",
            "xla-launch-blocks-over-hardware-limit",
            "environment",
        ),
    ],
)
def test_family_decides(text: str, rule: str, category: str) -> None:
    status, cat, got = verdict(text)
    assert (status, cat, got) == ("diagnosed", category, rule)


@pytest.mark.parametrize(
    ("where", "case_id", "rule", "category"),
    [
        (
            "holdout2",
            "triton-interpret-set-after-import",
            "triton-interpreter-reaches-compiled-jit-function",
            "environment",
        ),
        ("holdout8", "pycuda-nvcc75-sm61-unsupported", "nvcc-executable-not-found", "environment"),
        ("public/jax.yaml", "jax-triton-pallas-load-index-rank", "jax-ref-indexer-rank-mismatch", "kernel-logic"),
        (
            "holdout10",
            "xla-loop-fusion-launch-blocks-over-hardware-limit",
            "xla-launch-blocks-over-hardware-limit",
            "environment",
        ),
    ],
)
def test_dev_case_whole_log(where: str, case_id: str, rule: str, category: str) -> None:
    status, cat, got = verdict(corpus_log(where, case_id))
    assert (status, cat, got) == ("diagnosed", category, rule)


@pytest.mark.parametrize(
    "text",
    [
        # triton 3.7.1 runtime/jit.py JITFunction.__call__ from host code, no interpreter around it
        "RuntimeError: Cannot call @triton.jit'd outside of the scope of a kernel\n",
        # another program that is missing, a file whose name only contains nvcc, and nvcc found but failing
        "pytools.prefork.ExecError: error invoking 'g++ -c host.cpp': [Errno 2] No such file or directory\n",
        "FileNotFoundError: [Errno 2] No such file or directory: 'ninja'\n",
        "pytools.prefork.ExecError: status 1 invoking 'nvcc --cubin kernel.cu': kernel.cu(3): error: identifier\n",
        "FileNotFoundError: [Errno 2] No such file or directory: '/data/nvcc_outputs/kernel.ptx'\n",
        # a safe_zip failure with no Ref indexer in the traceback
        "ValueError: safe_zip() argument 2 is longer than argument 1\n",
    ],
)
def test_nearby_lines_not_taken(text: str) -> None:
    _, _, rule = verdict(text)
    assert rule not in {
        "triton-interpreter-reaches-compiled-jit-function",
        "nvcc-executable-not-found",
        "jax-ref-indexer-rank-mismatch",
    }
