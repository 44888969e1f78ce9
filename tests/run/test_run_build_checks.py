"""What the run path reads from a submission before (or instead of) running it: a load_inline call Python
rejects, a bound function whose declaration and definition do not link, and a triton.language name no
release has.  The submissions are real model generations kept in corpus/kernelbench/real_*."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.run import build_calls as BC
from diagnose.run import cuda_sources as S
from diagnose.run import ext_symbols as ES
from diagnose.run import triton_names as TN

CASES = Path(__file__).resolve().parents[2] / "corpus" / "kernelbench"


def calls(case: str) -> list[tuple[int, str]]:
    text = (CASES / case / "submission.py").read_text()
    return [(b.line, b.message) for b in BC.bad_calls(text, BC.installed_signatures(None))]


def test_a_load_inline_call_python_rejects_is_found_with_pythons_words() -> None:
    assert calls("real_kc_l1_18_no_cpp_sources") == [
        (38, "load_inline() missing 1 required positional argument: 'cpp_sources'")
    ]
    assert calls("real_kc_l1_19_extra_cuda_flags") == [
        (31, "load_inline() got an unexpected keyword argument 'extra_cuda_flags'")
    ]


@pytest.mark.parametrize(
    "case", ["real_kc_l1_19_correct", "real_kc_l1_19_float4_oob", "real_kc_l1_39_extern_c", "cuda_compiles"]
)
def test_calls_that_bind_are_left_alone(case: str) -> None:
    assert calls(case) == []


def test_the_installed_torchs_signature_is_read_and_agrees_with_the_fixed_list() -> None:
    got = BC.installed_signatures(None)
    assert got["load_inline"].params[:3] == ("name", "cpp_sources", "cuda_sources")
    assert got["load_inline"].required == 2 and "extra_cuda_cflags" in got["load_inline"].params
    assert set(BC.SIGNATURES["load"].params) <= set(got["load"].params)


def test_other_calls_named_load_and_star_arguments_are_not_judged() -> None:
    text = "import json, torch\nx = json.load(f, object_hook=h)\ny = torch.load(p, weights_only=True)\n"
    text += "m = load_inline(*args, **kw)\nn = load_inline(name='n', **extra)\n"
    assert BC.bad_calls(text, BC.SIGNATURES) == []
    two = "load_inline('m', 'int f();', name='m')\nload_inline()\n"
    assert [b.message for b in BC.bad_calls(two, BC.SIGNATURES)] == [
        "load_inline() got multiple values for argument 'name'",
        "load_inline() missing 2 required positional arguments: 'name' and 'cpp_sources'",
    ]


def test_an_extern_c_declaration_of_a_cxx_definition_does_not_link() -> None:
    (u,) = ES.unlinked(S.extract(CASES / "real_kc_l1_39_extern_c" / "submission.py"))
    assert (u.name, u.symbol) == ("l2_norm_cuda", "l2_norm_cuda")  # the recorded "undefined symbol: l2_norm_cuda"
    assert u.problem == 'declared extern "C" in cpp_sources, defined with C++ linkage in cuda_sources'


@pytest.mark.parametrize(
    "case",
    sorted(p.name for p in CASES.iterdir() if (p / "submission.py").is_file() and p.name != "real_kc_l1_39_extern_c"),
)
def test_no_other_kernelbench_submission_is_called_unlinked(case: str) -> None:
    assert ES.unlinked(S.extract(CASES / case / "submission.py")) == []


def test_a_definition_named_nowhere_and_c_on_both_sides() -> None:
    def check(decl: str, body: str) -> list[str]:
        text = f"load_inline(name='m', cpp_sources={decl!r}, cuda_sources={body!r}, functions=['f'])"
        return [u.problem for u in ES.unlinked(S.extract_text(text))]

    assert check("torch::Tensor f(torch::Tensor x);", "torch::Tensor g(torch::Tensor x) { return x; }") == [
        "declared in cpp_sources, defined in neither source"
    ]
    both = 'extern "C" { int f(int x) { return x; } }'
    assert check('extern "C" int f(int x);', both) == []
    assert check("int f(int x);", both) == [
        'declared with C++ linkage in cpp_sources, defined extern "C" in cuda_sources'
    ]
    assert check("int f(int x);", "int f(int x) { return f2(x); }\n// f(1);") == []


def test_a_triton_language_name_no_release_has() -> None:
    msg = "AttributeError: module 'triton.language' has no attribute '{}'"
    assert TN.unknown_name(msg.format("astype"), "3.7.1") == "astype"
    assert TN.unknown_name(msg.format("relu"), "3.8.0") == "relu"
    assert TN.unknown_name(msg.format("libdevice"), "3.7.1") is None  # moved between releases: version skew
    assert TN.unknown_name(msg.format("astype"), "3.6.0") is None  # an older install: not concluded
    assert TN.unknown_name(msg.format("astype"), None) is None
    assert TN.unknown_name("module 'triton.language.math' has no attribute 'tanh'", "3.7.1") is None
