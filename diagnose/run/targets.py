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
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("command", "cuda-file", "kernel-module", "kernelbench", "gpumode")
NATIVE = ("make_inputs", "kernel", "reference")
KERNELBENCH_REF = ("Model", "get_inputs", "get_init_inputs")
GPUMODE_REF = ("ref_kernel", "generate_input")
CU_SUFFIXES = (".cu",)
#: a KernelBench submission without ModelNew whose class is Model: the generated file replaces the problem file (as some
#: agentic harnesses keep it), and its Model is what the harness ran against the original's
DROP_IN_NOTE = (
    "the submission defines Model, not ModelNew (a drop-in replacement of the problem file): its Model was run"
)


class ProtocolError(ValueError):
    """The target follows no protocol, or misses part of one: a usage error (exit 2)."""


@dataclass(frozen=True)
class Target:
    kind: str
    argv: tuple[str, ...] = ()  # command: what to run
    path: Path | None = None  # the file given (submission, module or .cu)
    reference: Path | None = None
    uses_triton: bool = False  # the submission imports triton
    sizes: tuple[dict[str, Any], ...] | None = None  # GPU MODE: the tests of a task.yml beside the reference (and
    # the sizes its benchmarks add: benchmark_sizes)
    benchmarks: tuple[dict[str, Any], ...] = ()  # GPU MODE: those of ``sizes`` its benchmarks added
    notes: tuple[str, ...] = field(default=())
    # GPU MODE problem folder: module name -> file, as task.yml's ``files:`` assembles them (the
    # submission's own entry is "@SUBMISSION@"); the children import by these names, in place
    files: tuple[tuple[str, str], ...] = ()
    checker: bool = False  # the reference defines check_implementation: it decides correctness
    # the submission is plain PyTorch: no Triton, no CUDA source (load_inline, CuPy ...), no native module:
    # without a GPU it runs on the CPU as it is, under the same CUDA emulation as a Triton target
    pure_torch: bool = False
    # a benchmark submission Python cannot parse: "line N: message" (its reference is a benchmark's), reported as
    # the submission's failure (the harness's failed import), not as a usage error
    unparsable: str | None = None

    @property
    def harness_contract(self) -> bool:
        """The contract is what the benchmark's harness generates (KernelBench, GPU MODE): probes beyond it
        are notes, not the verdict."""
        return self.kind in ("kernelbench", "gpumode")

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
    native: bool = False  # imports a way to GPU code other than torch's own ops (NATIVE_MODULES, cpp_extension)
    classes: frozenset[str] = frozenset()  # the module-level classes it defines

    @property
    def pure_torch(self) -> bool:
        return "torch" in self.imports and "triton" not in self.imports and not self.native


#: modules through which a submission reaches GPU code of its own (besides Triton)
NATIVE_MODULES = frozenset({
    "cupy", "numba", "pycuda", "cuda", "ctypes", "cffi", "tilelang", "cutlass", "cute", "tvm", "jax", "warp",
    "thunderkittens", "helion", "tk",
})  # fmt: skip


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
    classes: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
            funcs[node.name] = node
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            classes.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    native = False
    for sub in ast.walk(tree):  # imports anywhere (a lazily imported triton is still triton)
        if isinstance(sub, ast.Import):
            imports.update(a.name.split(".")[0] for a in sub.names)
            native |= any("cpp_extension" in a.name for a in sub.names)
        elif isinstance(sub, ast.ImportFrom) and sub.module:
            imports.add(sub.module.split(".")[0])
            native |= "cpp_extension" in sub.module
    native |= bool(imports & NATIVE_MODULES) or "load_inline" in text or "cpp_extension" in text
    return _Module(frozenset(names), frozenset(imports), funcs, native, frozenset(classes))


def _syntax_error(path: Path) -> str | None:
    """ "line N: message" when ``path`` is readable text Python cannot parse, else None."""
    try:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as e:  # IndentationError and TabError too
        return f"line {e.lineno}: {type(e).__name__}: {e.msg}"
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, MemoryError):
        return None
    return None


def _unparsable(first: Path, ref_path: Path) -> Target | None:
    """A submission that does not parse, given with a KernelBench or GPU MODE reference: the harness's import of
    it fails (KernelBench records ``compiled: false``, a ``SyntaxError``), which is the submission's failure."""
    why = _syntax_error(first)
    if why is None:
        return None
    ref = _read(ref_path, "reference")
    try:
        text = first.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    triton = "import triton" in text or "from triton" in text
    if not _missing(ref, KERNELBENCH_REF):
        return Target(kind="kernelbench", path=first, reference=ref_path, uses_triton=triton, unparsable=why)
    if not _missing(ref, GPUMODE_REF):
        task = _task_beside(ref_path)
        return Target(
            kind="gpumode", path=first, reference=ref_path, uses_triton=triton, sizes=task.tests if task else None,
            benchmarks=task.benchmarks if task else (), files=_resolve(task, first) if task else (),
            checker="check_implementation" in ref.names, unparsable=why,
        )  # fmt: skip
    return None


def _missing(mod: _Module, needed: tuple[str, ...]) -> list[str]:
    return [n for n in needed if n not in mod.names]


def _required_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    pos = a.posonlyargs + a.args
    required = [p.arg for p in pos[: len(pos) - len(a.defaults)]]
    required += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None]
    return required


SUBMISSION = "@SUBMISSION@"


@dataclass(frozen=True)
class _Task:
    """What a GPU MODE ``task.yml`` says: the tests' parameters and how the files are assembled."""

    path: Path
    tests: tuple[dict[str, Any], ...] | None
    files: tuple[tuple[str, str], ...]  # (module name, source: a path from the task's folder, or SUBMISSION)
    main: str | None = None  # config.main: the harness's own runner (eval.py), which kdiag never imports
    benchmarks: tuple[dict[str, Any], ...] = ()  # the sizes ``tests`` ends with that its benchmarks added


def _task_file(folder: Path) -> Path | None:
    for name in ("task.yml", "task.yaml"):
        if (folder / name).is_file():
            return folder / name
    return None


def _read_task(path: Path) -> _Task:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ProtocolError(f"cannot read {path}: {e}") from e
    if not isinstance(data, dict):
        raise ProtocolError(f"{path} is not a mapping (a GPU MODE task.yml has files:, tests:, ...)")
    tests = data.get("tests")
    got: tuple[dict[str, Any], ...] | None = None
    added: tuple[dict[str, Any], ...] = ()
    if isinstance(tests, list) and all(isinstance(t, dict) for t in tests):
        # a test that leaves its seed empty ("seed":) gets one of its own, as the harness's runner gives it
        got = tuple({k: (i + 1 if k == "seed" and v is None else v) for k, v in t.items()} for i, t in enumerate(tests))
        benchmarks = data.get("benchmarks")
        if got and isinstance(benchmarks, list):
            added = benchmark_sizes(got, [b for b in benchmarks if isinstance(b, dict)])
            got += added
    files = []
    for f in data.get("files") or ():
        if isinstance(f, dict) and isinstance(f.get("name"), str) and isinstance(f.get("source"), str):
            name, source = f["name"], f["source"]
            if name.endswith(".py"):
                files.append((name[: -len(".py")], source))
    config = data.get("config")
    main = config.get("main") if isinstance(config, dict) and isinstance(config.get("main"), str) else None
    if main is not None:  # the runner kdiag replaces: a copy of the problem without it still runs
        files = [(n, src) for n, src in files if f"{n}.py" != main or (path.parent / src).is_file()]
    return _Task(path, got, tuple(files), main, added)


#: a size taken from a task's benchmarks costs at most this many times the largest test (the product of its integer
#: parameters): Triton's interpreter runs it on the CPU
BENCHMARK_COST = 8
#: and at most this many of them per task
BENCHMARK_SIZES = 2


def _cost(size: Mapping[str, Any]) -> int:
    return math.prod(v for k, v in size.items() if k != "seed" and type(v) is int and v > 0)


def benchmark_sizes(
    tests: Sequence[Mapping[str, Any]], benchmarks: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], ...]:
    """Sizes from a task's ``benchmarks:``, which are part of its contract (a benchmark's stated shapes), as far as
    the CPU can run them: for each integer parameter a benchmark sets past every test's value, the largest test with
    that one parameter at the benchmark's value (a row longer than any test's, a longer reduction), within
    :data:`BENCHMARK_COST` times that test's cost.

    >>> benchmark_sizes([{"rows": 64, "cols": 1000, "seed": 1}], [{"rows": 1024, "cols": 4096, "seed": 9}])
    ({'rows': 64, 'cols': 4096, 'seed': 9},)
    """
    base = max(tests, key=_cost)
    out: list[dict[str, Any]] = []
    for bench in benchmarks:
        for key, value in bench.items():
            if key == "seed" or type(value) is not int or type(base.get(key)) is not int:
                continue
            if all(type(t.get(key)) is int and value > t[key] for t in tests):
                size = {**base, key: value}
                if "seed" in bench:
                    size["seed"] = bench["seed"]
                if _cost(size) <= BENCHMARK_COST * _cost(base) and size not in out and size not in tests:
                    out.append(size)
    return tuple(out[:BENCHMARK_SIZES])


def _task_beside(reference: Path) -> _Task | None:
    """The GPU MODE task.yml next to the reference, read once (its tests with its benchmarks' sizes, its files), if
    there is one."""
    task = _task_file(reference.parent)
    return _read_task(task) if task else None


def _resolve(task: _Task, submission: Path) -> tuple[tuple[str, str], ...]:
    """``files:`` as module name -> absolute file (the submission's entry points at the file given)."""
    out = []
    for name, source in task.files:
        path = submission if source == SUBMISSION else (task.path.parent / source)
        out.append((name, str(path.resolve())))
    return tuple(out)


def _problem_folder(first: Path) -> Target:
    """``kdiag run FOLDER`` or ``kdiag run FOLDER/submission.py`` on a GPU MODE problem as the repository
    lays it out: task.yml (files:, tests:), reference.py, task.py, utils.py where ``files:`` says."""
    folder = first if first.is_dir() else first.parent
    task_path = _task_file(folder)
    if task_path is None:
        raise ProtocolError(f"{folder} has no task.yml: not a GPU MODE problem folder")
    task = _read_task(task_path)
    by_name = dict(task.files)
    if first.is_dir():
        sub_name = next((n for n, s in task.files if s == SUBMISSION), "submission")
        first = folder / f"{sub_name}.py"
        if not first.is_file():
            raise ProtocolError(f"{folder} has no {first.name}: give the submission file (kdiag run FOLDER/FILE.py)")
    ref_source = by_name.get("reference", "reference.py")
    ref_path = folder / ref_source
    if not ref_path.is_file():
        raise ProtocolError(f"{task_path} names {ref_source} as the reference, and there is no such file")
    for name, source in task.files:
        if source != SUBMISSION and not (folder / source).is_file():
            raise ProtocolError(f"{task_path} assembles {name}.py from {source}, and there is no such file")
    bad = _unparsable(first, ref_path)
    if bad is not None:
        return bad
    sub, ref = _read(first, "submission"), _read(ref_path, "reference")
    if "custom_kernel" not in sub.names:
        raise ProtocolError(f"the submission {first} defines no custom_kernel")
    missing = _missing(ref, GPUMODE_REF)
    if missing:
        raise ProtocolError(f"the reference {ref_path} lacks {', '.join(missing)}")
    if task.tests is None and "SIZES" not in ref.names:
        raise ProtocolError(f"{task_path} has no tests: (the parameters of generate_input)")
    return Target(
        kind="gpumode", path=first, reference=ref_path, uses_triton="triton" in sub.imports, sizes=task.tests,
        benchmarks=task.benchmarks, files=_resolve(task, first), checker="check_implementation" in ref.names,
        pure_torch=sub.pure_torch,
    )  # fmt: skip


def _in_problem_folder(first: Path) -> bool:
    """A submission file whose folder is a GPU MODE problem (task.yml and a reference beside it)."""
    return _task_file(first.parent) is not None and (first.parent / "reference.py").is_file()


def detect(positional: list[str], *, reference: str | None = None, as_command: bool = False) -> Target:
    """The target of ``kdiag run POSITIONAL... [--reference REF]``; ``as_command``: it came after ``--``."""
    if not positional:
        raise ProtocolError("nothing to run: give a file (kernel module, .cu, submission) or `-- COMMAND ...`")
    first = Path(positional[0])
    if not as_command and len(positional) == 1 and reference is None and first.is_dir():
        return _problem_folder(first)
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
    if reference is not None and Path(reference).is_file():
        bad = _unparsable(first, Path(reference))
        if bad is not None:
            return bad
    sub = _read(first, "submission" if reference else "kernel module")
    triton = "triton" in sub.imports
    if reference is None:
        miss = _missing(sub, NATIVE)
        if not miss:
            return Target(kind="kernel-module", path=first, uses_triton=triton)
        if "custom_kernel" in sub.names and _in_problem_folder(first):
            return _problem_folder(first)
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
        notes: tuple[str, ...] = ()
        if "ModelNew" not in sub.names:
            if "Model" not in sub.classes:
                raise ProtocolError(
                    f"{ref_path} is a KernelBench reference, but the submission {first} defines no ModelNew"
                )
            # a drop-in replacement of the problem file (harnesses that swap the problem file for the generated one
            # run its Model against the original's): its Model is the candidate
            notes = (DROP_IN_NOTE,)
        return Target(
            kind="kernelbench", path=first, reference=ref_path, uses_triton=triton, pure_torch=sub.pure_torch,
            notes=notes,
        )  # fmt: skip
    if not gm_miss:
        if "custom_kernel" not in sub.names:
            raise ProtocolError(
                f"{ref_path} is a GPU MODE reference, but the submission {first} defines no custom_kernel"
            )
        task = _task_beside(ref_path)
        sizes = task.tests if task else None
        needs = _required_params(ref.functions["generate_input"]) if "generate_input" in ref.functions else []
        if needs and sizes is None and "SIZES" not in ref.names:
            raise ProtocolError(
                f"generate_input in {ref_path} needs {', '.join(needs)}: put a task.yml with `tests:` beside it "
                "or define SIZES = [dict(...)] in the reference"
            )
        return Target(
            kind="gpumode", path=first, reference=ref_path, uses_triton=triton, sizes=sizes,
            files=_resolve(task, first) if task else (), benchmarks=task.benchmarks if task else (),
            checker="check_implementation" in ref.names, pure_torch=sub.pure_torch,
        )  # fmt: skip
    raise ProtocolError(
        f"{ref_path} follows no reference protocol: a KernelBench reference lacks {', '.join(kb_miss)}; "
        f"a GPU MODE reference lacks {', '.join(gm_miss)}"
    )
