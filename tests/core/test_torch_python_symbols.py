"""An undefined symbol of PyTorch's Python bindings (diagnose/data/catalogue/torch-python-symbols.yaml): the
symbol's library is known, its owner is not — an extension imported before torch, a binding outside Python calling
the Python bindings, or an extension built for another torch release. kdiag abstains with the candidates; a symbol
of libtorch/libc10 stays the ABI-mismatch rule's."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import corpus_log, verdict


@pytest.mark.parametrize(
    ("text", "family", "first"),
    [
        # pytorch/extension-cpp#6 (corpus/holdout19): a THP* C name at import, the extension imported before torch
        (
            corpus_log("holdout19", "h19a-extcpp-imported-before-torch"),
            "torch-python-symbol-undefined",
            "runtime-assumption",
        ),
        # ankane/torch.rb#16 (corpus/holdout19): ruby's lazy binding of torch::utils::cuda_lazy_init, no import order
        (
            corpus_log("holdout19", "h19a-torchrb-python-only-libtorch-symbol"),
            "torch-python-symbol-lookup-error",
            "kernel-logic",
        ),
    ],
)
def test_a_python_bindings_symbol_abstains_with_candidates(text: str, family: str, first: str) -> None:
    status, category, rule = verdict(text)
    assert (status, category) == ("unknown", "unknown")
    assert rule == f"{family}-as-{first}"


def test_a_libtorch_symbol_is_still_an_abi_mismatch() -> None:
    # pytorch/extension-cpp#103 (env-abi-mismatch's example): torch::jit::parseSchema with the old string ABI
    text = (
        "ImportError: /root/miniconda3/lib/python3.11/site-packages/extension_cpp/_C.cpython-311-x86_64-linux-gnu.so:"
        " undefined symbol: _ZN5torch3jit11parseSchemaERKSsb"
    )
    assert verdict(text)[1:] == ("environment", "env-abi-mismatch")
