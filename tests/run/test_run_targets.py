"""Target detection reads files (AST), never imports them; a file that follows no protocol is a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.run.targets import ProtocolError, detect

NATIVE = """
    import torch
    def make_inputs(device, seed=0, n=8):
        return (torch.ones(n, device=device),)
    def kernel(x):
        return x * 2
    def reference(x):
        return x * 2
"""


def test_native_module_detected_without_importing_it(write, tmp_path: Path) -> None:
    # a module-level raise would fire on import: detection must not import
    p = write(tmp_path, "k.py", NATIVE + "    raise SystemExit('imported!')\n")
    t = detect([str(p)])
    assert (t.kind, t.uses_triton) == ("kernel-module", False)


def test_kernelbench_and_gpumode_pairs(write, tmp_path: Path) -> None:
    ref = write(tmp_path, "ref.py", "class Model: ...\ndef get_inputs(): ...\ndef get_init_inputs(): ...\n")
    sub = write(tmp_path, "sub.py", "import triton\nclass ModelNew: ...\n")
    t = detect([str(sub)], reference=str(ref))
    assert (t.kind, t.uses_triton) == ("kernelbench", True)
    gref = write(tmp_path, "gref.py", "def ref_kernel(data): ...\ndef generate_input(size=8, seed=0): ...\n")
    gsub = write(tmp_path, "gsub.py", "def custom_kernel(data): ...\n")
    assert detect([str(gsub)], reference=str(gref)).kind == "gpumode"


def test_gpumode_sizes_from_task_yml(write, tmp_path: Path) -> None:
    gref = write(tmp_path, "reference.py", "def ref_kernel(data): ...\ndef generate_input(size, seed): ...\n")
    gsub = write(tmp_path, "submission.py", "def custom_kernel(data): ...\n")
    with pytest.raises(ProtocolError, match=r"generate_input .* needs size, seed"):
        detect([str(gsub)], reference=str(gref))
    write(tmp_path, "task.yml", "tests:\n  - {size: 64, seed: 1}\n  - {size: 100, seed: 2}\n")
    assert detect([str(gsub)], reference=str(gref)).sizes == ({"size": 64, "seed": 1}, {"size": 100, "seed": 2})


@pytest.mark.parametrize(
    ("source", "reference", "message"),
    [
        ("def kernel(x): ...\n", None, "lacks make_inputs, reference"),
        ("class ModelNew: ...\n", None, "KernelBench submission.*--reference"),
        ("def custom_kernel(data): ...\n", None, "GPU MODE submission.*--reference"),
        ("def kernel(x): ...\n", "ref.py", "follows no reference protocol"),
        ("def f(:\n", None, "not valid Python"),
    ],
)
def test_protocol_errors_name_what_is_missing(
    write, tmp_path: Path, source: str, reference: str | None, message: str
) -> None:
    p = write(tmp_path, "sub.py", source)
    ref = write(tmp_path, "ref.py", "def helper(): ...\n") if reference else None
    with pytest.raises(ProtocolError, match=message):
        detect([str(p)], reference=str(ref) if ref else None)


def test_kernelbench_reference_without_modelnew(write, tmp_path: Path) -> None:
    ref = write(tmp_path, "ref.py", "class Model: ...\ndef get_inputs(): ...\ndef get_init_inputs(): ...\n")
    sub = write(tmp_path, "sub.py", "def Model(): ...\nclass Helper: ...\n")
    with pytest.raises(ProtocolError, match="defines no ModelNew"):
        detect([str(sub)], reference=str(ref))


def test_a_kernelbench_submission_that_replaces_the_problem_file_runs_its_model(write, tmp_path: Path) -> None:
    # harnesses that swap the generated file for the problem file keep its class name (Model): it is the candidate
    ref = write(tmp_path, "ref.py", "class Model: ...\ndef get_inputs(): ...\ndef get_init_inputs(): ...\n")
    sub = write(tmp_path, "sub.py", "class Model: ...\ndef get_inputs(): ...\ndef get_init_inputs(): ...\n")
    t = detect([str(sub)], reference=str(ref))
    assert t.kind == "kernelbench" and any("defines Model, not ModelNew" in n for n in t.notes), t
    both = write(tmp_path, "both.py", "class Model: ...\nclass ModelNew: ...\n")
    assert detect([str(both)], reference=str(ref)).notes == ()  # ModelNew, when there is one, is the candidate


def test_commands_and_cuda_files(write, tmp_path: Path) -> None:
    assert detect(["python", "-c", "pass"]).argv == ("python", "-c", "pass")
    cu = write(tmp_path, "a.cu", "__global__ void k() {}\n")
    assert detect([str(cu)]).kind == "cuda-file"
    p = write(tmp_path, "k.py", NATIVE)
    assert detect([str(p)], as_command=True).kind == "command"  # after `--`, a .py is just a command


def test_cli_protocol_error_is_exit_2(write, tmp_path: Path, kdiag_run) -> None:
    p = write(tmp_path, "half.py", "def kernel(x): ...\n")
    code, out, err = kdiag_run(str(p))
    assert code == 2 and out is None
    assert "lacks make_inputs, reference" in err
