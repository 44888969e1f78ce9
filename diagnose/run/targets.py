"""What kind of target ``kdiag run`` was given, found by reading the files (AST), never importing them.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "k.py").write_text("import triton\\ndef make_inputs(device, seed=0, n=8): ...\\n"
...                             "def kernel(x): ...\\ndef reference(x): ...\\nSIZES = [dict(n=8)]\\n")
>>> t = detect([str(d / "k.py")])
>>> t.kind, t.uses_triton
('kernel-module', True)
>>> _ = (d / "half.py").write_text("def kernel(x): ...\\n")
>>> detect([str(d / "half.py")])
Traceback (most recent call last):
...
diagnose.run.targets.ProtocolError: ...half.py follows no protocol kdiag knows; as a kernel module it lacks make_inputs, reference ...
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("command", "cuda-file", "kernel-module", "kernelbench", "gpumode")
NATIVE = ("make_inputs", "kernel", "reference")
KERNELBENCH_REF = ("Model", "get_inputs", "get_init_inputs")
GPUMODE_REF = ("ref_kernel", "generate_input")
CU_SUFFIXES = (".cu",)


class ProtocolError(ValueError):
    """The target follows no protocol, or misses part of one: a usage error (exit 2)."""


@dataclass(frozen=True)
class Target:
    kind: str
    argv: tuple[str, ...] = ()  # command: what to run
    path: Path | None = None  # the file given (submission, module or .cu)
    reference: Path | None = None
    uses_triton: bool = False  # the submission imports triton
    sizes: tuple[dict[str, Any], ...] | None = None  # GPU MODE: the tests of a task.yml beside the reference
    notes: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        if self.kind == "command":
            return " ".join(self.argv)
        name = str(self.path)
        return f"{name} (reference {self.reference})" if self.reference else name


@dataclass(frozen=True)
class _Module:
    names: frozenset[str]
    imports: frozenset[str]
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]


def _read(path: Path, role: str) -> _Module:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ProtocolError(f"cannot read the {role} {path}: {e}") from e
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as e:
        raise ProtocolError(f"the {role} {path} is not valid Python (line {e.lineno}: {e.msg})") from e
    names: set[str] = set()
    imports: set[str] = set()
    funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
            funcs[node.name] = node
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    for sub in ast.walk(tree):  # imports anywhere (a lazily imported triton is still triton)
        if isinstance(sub, ast.Import):
            imports.update(a.name.split(".")[0] for a in sub.names)
        elif isinstance(sub, ast.ImportFrom) and sub.module:
            imports.add(sub.module.split(".")[0])
    return _Module(frozenset(names), frozenset(imports), funcs)


def _missing(mod: _Module, needed: tuple[str, ...]) -> list[str]:
    return [n for n in needed if n not in mod.names]


def _required_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    pos = a.posonlyargs + a.args
    required = [p.arg for p in pos[: len(pos) - len(a.defaults)]]
    required += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None]
    return required


def _task_tests(reference: Path) -> tuple[dict[str, Any], ...] | None:
    """The ``tests:`` of a GPU MODE task.yml next to the reference, if there is one."""
    for name in ("task.yml", "task.yaml"):
        p = reference.parent / name
        if p.is_file():
            import yaml

            try:
                data = yaml.safe_load(p.read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError) as e:
                raise ProtocolError(f"cannot read {p}: {e}") from e
            tests = data.get("tests") if isinstance(data, dict) else None
            if isinstance(tests, list) and all(isinstance(t, dict) for t in tests):
                return tuple(tests)
    return None


def detect(positional: list[str], *, reference: str | None = None, as_command: bool = False) -> Target:
    """The target of ``kdiag run POSITIONAL... [--reference REF]``; ``as_command``: it came after ``--``."""
    if not positional:
        raise ProtocolError("nothing to run: give a file (kernel module, .cu, submission) or `-- COMMAND ...`")
    first = Path(positional[0])
    if as_command or len(positional) > 1 or first.suffix not in (".py", *CU_SUFFIXES):
        if reference:
            raise ProtocolError("--reference goes with a submission file, not with a command")
        return Target(kind="command", argv=tuple(positional))
    if not first.is_file():
        raise ProtocolError(f"no such file: {first}")
    if first.suffix in CU_SUFFIXES:
        if reference:
            raise ProtocolError("--reference goes with a Python submission, not with a .cu file")
        return Target(kind="cuda-file", path=first)
    sub = _read(first, "submission" if reference else "kernel module")
    triton = "triton" in sub.imports
    if reference is None:
        miss = _missing(sub, NATIVE)
        if not miss:
            return Target(kind="kernel-module", path=first, uses_triton=triton)
        if "ModelNew" in sub.names:
            raise ProtocolError(
                f"{first} defines ModelNew (a KernelBench submission): give its reference with --reference ref.py"
            )
        if "custom_kernel" in sub.names:
            raise ProtocolError(
                f"{first} defines custom_kernel (a GPU MODE submission): give its reference with --reference reference.py"
            )
        if not _missing(sub, KERNELBENCH_REF) or not _missing(sub, GPUMODE_REF):
            raise ProtocolError(f"{first} is a benchmark reference; run the submission with --reference {first}")
        raise ProtocolError(
            f"{first} follows no protocol kdiag knows; as a kernel module it lacks {', '.join(miss)} "
            f"(needs make_inputs(device, seed=0, **size), kernel(*inputs), reference(*inputs)); "
            "a KernelBench or GPU MODE submission needs --reference"
        )
    ref_path = Path(reference)
    if not ref_path.is_file():
        raise ProtocolError(f"no such reference file: {ref_path}")
    ref = _read(ref_path, "reference")
    kb_miss, gm_miss = _missing(ref, KERNELBENCH_REF), _missing(ref, GPUMODE_REF)
    if not kb_miss:
        if "ModelNew" not in sub.names:
            raise ProtocolError(
                f"{ref_path} is a KernelBench reference, but the submission {first} defines no ModelNew"
            )
        return Target(kind="kernelbench", path=first, reference=ref_path, uses_triton=triton)
    if not gm_miss:
        if "custom_kernel" not in sub.names:
            raise ProtocolError(
                f"{ref_path} is a GPU MODE reference, but the submission {first} defines no custom_kernel"
            )
        sizes = _task_tests(ref_path)
        needs = _required_params(ref.functions["generate_input"]) if "generate_input" in ref.functions else []
        if needs and sizes is None and "SIZES" not in ref.names:
            raise ProtocolError(
                f"generate_input in {ref_path} needs {', '.join(needs)}: put a task.yml with `tests:` beside it "
                "or define SIZES = [dict(...)] in the reference"
            )
        return Target(kind="gpumode", path=first, reference=ref_path, uses_triton=triton, sizes=sizes)
    raise ProtocolError(
        f"{ref_path} follows no reference protocol: a KernelBench reference lacks {', '.join(kb_miss)}; "
        f"a GPU MODE reference lacks {', '.join(gm_miss)}"
    )
