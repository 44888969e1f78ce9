"""What the run path still reads from a submission whose CUDA compiled but cannot run here: a ``cpp_extension.load``
whose sources define no Python module, and a name the harness's entry points use that nothing defines.  The
submissions are real model generations kept in corpus/kernelbench/real_* (their recorded outcomes in labels.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.run import cuda_sources as S
from diagnose.run import ext_module as EM
from diagnose.run import py_names as PN

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "corpus" / "kernelbench"


def names(case: str) -> list[tuple[str, str]]:
    return [(u.name, u.function) for u in PN.undefined((CASES / case / "submission.py").read_text())]


def test_a_name_only_the_cuda_source_defines_is_undefined_in_forward() -> None:
    # recorded on a V100: NameError: name 'TILE_SIZE' is not defined, in forward
    (u,) = PN.undefined((CASES / "real_pgo_l1_8_tile_size_undefined" / "submission.py").read_text())
    assert (u.name, u.function, u.line) == ("TILE_SIZE", "ModelNew.forward", 63)


def test_a_helper_the_entry_point_calls_is_followed() -> None:
    # the launch helper triton_softmax (called from ModelNew.forward) reads a `meta` nothing defines
    assert names("real_gptoss_softmax_meta") == [("meta", "triton_softmax")]


def test_sizes_only_the_problem_file_defines_are_undefined_in_the_submission() -> None:
    # its module-level example code fails first (recorded: compiled false); forward would fail on the same names
    got = PN.undefined((CASES / "real_pgo_l2_6_module_level_names" / "submission.py").read_text())
    assert [(u.name, u.line) for u in got] == [
        ("out_channels", 80), ("in_channels", 80), ("kernel_size", 80), ("pool_kernel_size", 82)
    ]  # fmt: skip


def test_a_module_used_but_never_imported_is_undefined_where_it_is_read() -> None:
    # recorded on an L40S: compiled false, "name 'math' is not defined" (the constructor calls math.sqrt)
    assert names("real_pal_l1_55_math_not_imported") == [("math", "ModelNew.__init__")]


FLAGGED = (
    "real_pgo_l1_8_tile_size_undefined",
    "real_gptoss_softmax_meta",
    "real_pgo_l2_6_module_level_names",
    "real_pal_l1_55_math_not_imported",
)
SUBMISSIONS = sorted(
    [p for p in CASES.glob("*/submission.py") if p.parent.name not in FLAGGED]
    + list((ROOT / "corpus" / "gpumode" / "problems").glob("*/*submission*.py"))
)


@pytest.mark.parametrize("path", SUBMISSIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_other_corpus_submission_uses_an_undefined_name(path: Path) -> None:
    assert PN.undefined(path.read_text()) == []


def test_what_no_harness_calls_and_what_kdiag_cannot_see_are_not_judged() -> None:
    # a get_inputs naming sizes the file never defines (model-written files keep one) is never run by the harness
    assert (
        PN.undefined(
            "class ModelNew:\n    def forward(self, x):\n        return x\ndef get_inputs():\n    return [M]\n"
        )
        == []
    )
    star = "from sizes import *\nclass ModelNew:\n    def forward(self, x):\n        return x * TILE\n"
    assert PN.undefined(star) == []
    glob = "def setup():\n    global TILE\n    TILE = 16\nclass ModelNew:\n    def forward(self, x):\n        return x * TILE\n"
    assert PN.undefined(glob) == []


def test_a_class_attribute_read_bare_in_a_method_is_undefined_as_python_says() -> None:
    text = "class ModelNew:\n    TILE = 16\n    def forward(self, x):\n        return self.scale(x) * TILE\n"
    text += "    def scale(self, x):\n        return x * SCALE\n"
    assert [(u.name, u.function) for u in PN.undefined(text)] == [
        ("TILE", "ModelNew.forward"),
        ("SCALE", "ModelNew.scale"),
    ]


def test_custom_kernel_is_an_entry_point() -> None:
    text = "def custom_kernel(data):\n    return data * BLOCK\n"
    assert [(u.name, u.function, u.line) for u in PN.undefined(text)] == [("BLOCK", "custom_kernel", 2)]


def test_a_load_of_a_file_the_submission_writes_reads_what_it_writes_and_finds_no_module() -> None:
    sub = CASES / "real_pgo_l1_1_no_module_init" / "submission.py"
    found = S.extract(sub)
    (src,) = found.sources
    assert (src.api, src.lang, found.unresolved) == ("load", "cuda", ())
    assert "__global__ void matmul_kernel" in src.text and "written by the submission at line" in src.origin
    # recorded on a V100: dynamic module does not define module export function (PyInit_matmul_ext)
    assert EM.no_module(sub.read_text(), sub.parent) == EM.NoModule("matmul_ext", 41, ("matmul_kernel.cu",))


@pytest.mark.parametrize(
    "text",
    [
        # a source with the module it imports
        'open("k.cu", "w").write("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\\"f\\", &f); }")\n'
        'm = load(name="m", sources=["k.cu"])\n',
        # a library that registers operators and is not imported as a module
        'open("k.cu", "w").write("int f();")\nm = load(name="m", sources=["k.cu"], is_python_module=False)\n',
        # a file kdiag cannot read, and a source that includes a local header it cannot see
        'm = load(name="m", sources=["elsewhere.cu"])\n',
        'open("k.cu", "w").write("#include \\"bind.h\\"\\nint f();")\nm = load(name="m", sources=["k.cu"])\n',
        # the source text given as the path (the call itself fails first; a rule reads that message)
        'src = "__global__ void k() {}"\nm = load(name="m", sources=[src])\n',
    ],
)
def test_loads_that_import_or_cannot_be_judged_are_left_alone(text: str, tmp_path: Path) -> None:
    assert EM.no_module(text, tmp_path) is None


def test_the_other_corpus_submissions_that_call_load_are_left_alone() -> None:
    calls = [p for p in CASES.glob("*/submission.py") if "load(" in p.read_text()]
    assert [p.parent.name for p in calls if EM.no_module(p.read_text(), p.parent)] == ["real_pgo_l1_1_no_module_init"]
