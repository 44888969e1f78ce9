"""The CUDA sources of a Python submission, found by reading it (AST), never importing or running it.

What is found: ``torch.utils.cpp_extension.load_inline(cuda_sources=..., cpp_sources=...)``,
``load(sources=[...])`` (the ``.cu`` files it names, beside the submission, or the string the submission
writes to one before it calls ``load``), CuPy ``RawKernel(code, ...)`` and ``RawModule(code=...)``,
and NVRTC's ``nvrtcCreateProgram(src, ...)``.  A source argument is resolved when it is a string
constant, a name bound to one (anywhere in the file, the last binding wins), a ``+`` of such, a list
or tuple of such, or one of those through ``textwrap.dedent``, ``.strip()``, ``.encode()`` or
``str.encode``.  What cannot be resolved (an f-string, a file read at
run time) is said, not guessed.

>>> import ast
>>> found = extract_text('''
... from torch.utils.cpp_extension import load_inline
... src = "__global__ void k(float* x) { x[0] = 1.f; }"
... head = "torch::Tensor f(torch::Tensor x);"
... mod = load_inline(name="m", cpp_sources=head, cuda_sources=src + "\\\\n", functions=["f"])
... ''')
>>> [(s.api, s.lang, s.line) for s in found.sources]
[('load_inline', 'cuda', 5), ('load_inline', 'cpp', 5)]
>>> found.sources[0].text.splitlines()[:2]
['#include <torch/types.h>', '#include <cuda.h>']
>>> extract_text('import cupy\\nk = cupy.RawKernel(make_code(), "k")').unresolved
('RawKernel code (line 2): not a string kdiag can read without running the submission',)
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

#: what load_inline puts in front of the CUDA sources (torch/utils/cpp_extension.py)
LOAD_INLINE_CUDA_PREFIX = "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
LOAD_INLINE_CPP_PREFIX = "#include <torch/extension.h>\n"
#: what load_inline puts after the C++ sources when ``functions`` is given: a pybind11 module whose
#: ``m.def`` lines name each function (wrapped in torch's error handling unless told otherwise)
BIND_HEAD = "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {"
_CUDA_SUFFIXES = (".cu", ".cuh")
#: a target architecture in nvcc's and NVRTC's flags: -arch=sm_100a, --gpu-architecture compute_90a,
#: -gencode arch=compute_100a,code=sm_100a (the code= part names what is built)
_ARCH_FLAG = re.compile(
    r"(?:-arch|--gpu-architecture|-gencode(?:=|\s+)arch=compute_\w+,code)[=\s]\[?(?:sm|compute)_(\d{2,3}[af]?)\b"
)


def requested_arch(flags: list[str] | None) -> str | None:
    """The newest target a source's own flags ask nvcc or NVRTC for, as ``sm_NN``, else None.

    >>> requested_arch(["-O3", "-arch=sm_100a"]), requested_arch(["-gencode", "arch=compute_90a,code=sm_90a"])
    ('sm_100a', 'sm_90a')
    >>> requested_arch(["--gpu-architecture=compute_80", "-gencode=arch=compute_120a,code=[sm_120a]"])
    'sm_120a'
    >>> requested_arch(["-O3", "--use_fast_math"]) is None
    True
    """
    found = _ARCH_FLAG.findall(" ".join(flags or []))
    return f"sm_{max(found, key=lambda a: int(a.rstrip('af')))}" if found else None


#: what only HIP source has: its runtime's header, launch macro and API, AMD's platform macro and GCN builtins
_HIP = re.compile(
    r"#\s*include\s*[<\"]hip/|\bhipLaunchKernelGGL\b|\bhip(?:Malloc|Memcpy|Memset|Free|Stream|Event|Error|Device|GetLastError)"
    r"\w*\s*\(|\b__HIP_PLATFORM_AMD__\b|\b__builtin_amdgcn_\w+|#\s*include\s*[<\"]rocwmma/"
)


#: C/C++ comments, which may name a platform the code is not written for
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class Platform:
    """Another vendor's accelerator platform whose source looks like CUDA C++ but is built by its own toolchain."""

    name: str  # "HIP"
    devices: str  # "AMD GPUs"
    builder: str  # "a ROCm build of torch compiles it with hipcc"
    marks: re.Pattern[str]  # what only that platform's source has (headers, runtime API, builtins)


#: the platforms benchmark harnesses port CUDA problems to (KernelBench forks, MultiKernelBench, GPU MODE's AMD
#: problems), each told by its runtime's headers, runtime API and device qualifiers, never by a comment's word
PLATFORMS = (
    Platform("HIP", "AMD GPUs", "a ROCm build of torch compiles it with hipcc", _HIP),
    Platform(
        "MUSA",
        "Moore Threads GPUs",
        "torch_musa compiles it with mcc",
        re.compile(
            r"#\s*include\s*[<\"]musa\w*\.h|\bmusa(?:Malloc|Memcpy|Memset|Free|Stream|Event|Error|Device|GetLastError|"
            r"LaunchKernel)\w*\s*\(|\b__MUSA_ARCH__\b|\btorch_musa\b"
        ),
    ),
    Platform(
        "Ascend C",
        "Huawei Ascend NPUs",
        "the CANN toolkit compiles it",
        re.compile(r"#\s*include\s*[<\"]kernel_operator\.h|\b__aicore__\b|\bAscendC::"),
    ),
    Platform(
        "BANG C",
        "Cambricon MLUs",
        "the Neuware toolkit compiles it with cncc",
        re.compile(r"#\s*include\s*[<\"]bang\.h|\b__mlu_(?:global|entry|func|device)__"),
    ),
)


@dataclass(frozen=True)
class Source:
    api: str  # load_inline | load | RawKernel | RawModule | nvrtc
    lang: str  # cuda | cpp
    text: str  # what the compiler sees (load_inline's prefix included)
    line: int  # the call in the submission
    origin: str  # "load_inline cuda_sources (line 12)", or the file load() names
    arch: str | None = None  # the target its own compiler flags ask for (extra_cuda_cflags, options): "sm_100a"

    @property
    def needs_torch(self) -> bool:
        return "torch/" in self.text or "ATen/" in self.text

    @property
    def platform(self) -> Platform | None:
        """The other vendor's platform this source is written for (HIP, MUSA, ...): nvcc cannot check it."""
        code = _COMMENT.sub(" ", self.text)
        return next((p for p in PLATFORMS if p.marks.search(code)), None)

    @property
    def device_only(self) -> bool:
        """CuPy and NVRTC compile device code only (no host compiler, no torch)."""
        return self.api in ("RawKernel", "RawModule", "nvrtc")


@dataclass(frozen=True)
class Found:
    sources: tuple[Source, ...] = ()
    unresolved: tuple[str, ...] = ()  # what names a source kdiag could not read statically


def _call_name(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


class _Resolver:
    def __init__(self, tree: ast.AST) -> None:
        self.names: dict[str, ast.expr] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.names[t.id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.names[node.target.id] = node.value

    def strings(self, node: ast.expr | None, depth: int = 0) -> list[str] | None:
        """The string(s) an expression stands for, or None when it is not statically known."""
        if node is None or depth > 20:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            v = node.value
            return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v]
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.strings(self.names[node.id], depth + 1)
        if isinstance(node, ast.List | ast.Tuple):
            out: list[str] = []
            for elt in node.elts:
                got = self.strings(elt, depth + 1)
                if got is None:
                    return None
                out += got
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.strings(node.left, depth + 1), self.strings(node.right, depth + 1)
            if left is None or right is None:
                return None
            if len(left) == 1 and len(right) == 1:
                return [left[0] + right[0]]
            return left + right  # list + list
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name == "dedent" and node.args:
                got = self.strings(node.args[0], depth + 1)
                return None if got is None else [textwrap.dedent(s) for s in got]
            if name == "encode" and _is_str_encode(node) and node.args:
                return self.strings(node.args[0], depth + 1)
            if name in ("strip", "lstrip", "rstrip", "encode") and isinstance(node.func, ast.Attribute):
                got = self.strings(node.func.value, depth + 1)
                if got is None or (name != "encode" and node.args):
                    return None
                return [s if name == "encode" else getattr(s, name)() for s in got]
        return None


def _is_str_encode(node: ast.Call) -> bool:
    """``str.encode(src)`` (as against ``src.encode()``)."""
    f = node.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("str", "bytes")


def _arg(node: ast.Call, kw: str, pos: int | None) -> ast.expr | None:
    for k in node.keywords:
        if k.arg == kw:
            return k.value
    if pos is not None and len(node.args) > pos and not any(isinstance(a, ast.Starred) for a in node.args[: pos + 1]):
        return node.args[pos]
    return None


def bindings(functions: list[str], wrapped: bool = True) -> str:
    """The module definition load_inline appends to its C++ sources for ``functions``.

    >>> print(bindings(["f"]))
    <BLANKLINE>
    PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("f", torch::wrap_pybind_function(f), "f");
    }
    """
    lines = [BIND_HEAD]
    for f in functions:
        fn = f"torch::wrap_pybind_function({f})" if wrapped else f
        lines.append(f'm.def("{f}", {fn}, "{f}");')
    return "\n".join([*lines, "}"])


def _functions(res: _Resolver, node: ast.Call) -> list[str] | None:
    """load_inline's ``functions``: a name, a list of names, or a dict name -> docstring (keys)."""
    expr = _arg(node, "functions", 3)
    if isinstance(expr, ast.Name) and isinstance(res.names.get(expr.id), ast.Dict):
        expr = res.names[expr.id]
    if isinstance(expr, ast.Dict):
        keys = [res.strings(k) for k in expr.keys if k is not None]
        return None if any(k is None for k in keys) else [k[0] for k in keys if k]
    got = res.strings(expr) if expr is not None else None
    return [g for g in got if g.isidentifier()] if got else None


_WRITE_MODES = ("w", "wt", "w+", "x", "xt")


def _open_for_writing(node: ast.expr) -> ast.expr | None:
    """The path of ``open(path, "w")`` (a text write), or None."""
    if not (isinstance(node, ast.Call) and _call_name(node) == "open" and node.args):
        return None
    mode = _arg(node, "mode", 1)
    ok = isinstance(mode, ast.Constant) and isinstance(mode.value, str) and mode.value in _WRITE_MODES
    return node.args[0] if ok else None


def written_files(tree: ast.AST, res: _Resolver) -> dict[str, ast.expr]:
    """The files the submission writes a string to when it is imported, path -> what it writes: ``with open(p,
    "w") as f: f.write(src)``, ``open(p, "w").write(src)``, ``Path(p).write_text(src)`` (a source it then
    hands to ``load``)."""
    out: dict[str, ast.expr] = {}

    def put(path: ast.expr | None, value: ast.expr | None) -> None:
        got = res.strings(path) if path is not None else None
        if got and len(got) == 1 and value is not None:
            out[got[0]] = value

    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                path = _open_for_writing(item.context_expr)
                var = item.optional_vars
                if path is None or not isinstance(var, ast.Name):
                    continue
                for call in (c for b in node.body for c in ast.walk(b) if isinstance(c, ast.Call)):
                    f = call.func
                    if (isinstance(f, ast.Attribute) and f.attr == "write" and isinstance(f.value, ast.Name)
                            and f.value.id == var.id and call.args):  # fmt: skip
                        put(path, call.args[0])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr == "write":
                put(_open_for_writing(node.func.value), node.args[0])
            elif node.func.attr == "write_text" and isinstance(node.func.value, ast.Call):
                inner = node.func.value
                if _call_name(inner) == "Path" and inner.args:
                    put(inner.args[0], node.args[0])
    return out


def extract_text(text: str, folder: Path | None = None) -> Found:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return Found()
    res = _Resolver(tree)
    written = written_files(tree, res)
    sources: list[Source] = []
    unresolved: list[str] = []

    def want(node: ast.Call, api: str, what: str, expr: ast.expr | None) -> list[str] | None:
        if expr is None:
            return None
        got = res.strings(expr)
        if got is None:
            unresolved.append(
                f"{api} {what} (line {node.lineno}): not a string kdiag can read without running the submission"
            )
        return got

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        if name == "load_inline":
            arch = requested_arch(res.strings(_arg(node, "extra_cuda_cflags", None)))
            cuda = want(node, name, "cuda_sources", _arg(node, "cuda_sources", 2))
            cpp = want(node, name, "cpp_sources", _arg(node, "cpp_sources", 1))
            if cuda and any(c.strip() for c in cuda):
                body = LOAD_INLINE_CUDA_PREFIX + "\n".join(cuda)
                sources.append(
                    Source(name, "cuda", body, node.lineno, f"load_inline cuda_sources (line {node.lineno})", arch)
                )
            functions = _functions(res, node) if cuda and any(c.strip() for c in cuda) else None
            # load_inline writes main.cpp from the C++ sources and the bindings for ``functions``, also when the
            # C++ sources are empty: then the bindings name functions main.cpp never declares
            if (cpp and any(c.strip() for c in cpp)) or (cpp is not None and functions):
                body = LOAD_INLINE_CPP_PREFIX + "\n".join(cpp)
                functions = _functions(res, node)
                if functions:
                    wrap = _arg(node, "with_pytorch_error_handling", None)
                    wrapped = not (isinstance(wrap, ast.Constant) and wrap.value is False)
                    body += "\n" + bindings(functions, wrapped)
                sources.append(Source(name, "cpp", body, node.lineno, f"load_inline cpp_sources (line {node.lineno})"))
        elif name == "load" and _arg(node, "sources", 1) is not None:
            arch = requested_arch(res.strings(_arg(node, "extra_cuda_cflags", None)))
            files = want(node, name, "sources", _arg(node, "sources", 1))
            for f in files or []:
                p = Path(f) if folder is None or Path(f).is_absolute() else folder / f
                if p.suffix not in (*_CUDA_SUFFIXES, ".cpp", ".cc", ".cxx"):
                    continue
                origin = f"{f} (load, line {node.lineno})"
                try:
                    body = p.read_text(encoding="utf-8", errors="replace")
                except OSError as e:
                    text_of = res.strings(written[f]) if f in written else None
                    if not text_of:
                        unresolved.append(f"load sources (line {node.lineno}): cannot read {f}: {e.strerror}")
                        continue
                    body = "\n".join(text_of)
                    origin = f"{f} (written by the submission at line {written[f].lineno}; load, line {node.lineno})"
                lang = "cuda" if p.suffix in _CUDA_SUFFIXES else "cpp"
                sources.append(Source(name, lang, body, node.lineno, origin, arch if lang == "cuda" else None))
        elif name in ("RawKernel", "RawModule"):
            code = want(node, name, "code", _arg(node, "code", 0))
            if code:
                arch = requested_arch(res.strings(_arg(node, "options", None)))
                sources.append(
                    Source(name, "cuda", "\n".join(code), node.lineno, f"{name} code (line {node.lineno})", arch)
                )
        elif name == "nvrtcCreateProgram":
            code = want(node, "nvrtc", "source", _arg(node, "src", 0))
            if code:
                sources.append(
                    Source("nvrtc", "cuda", "\n".join(code), node.lineno, f"nvrtcCreateProgram (line {node.lineno})")
                )
    sources.sort(key=lambda s: (s.line, s.lang != "cuda"))
    return Found(tuple(sources), tuple(dict.fromkeys(unresolved)))


def extract(path: Path) -> Found:
    """The CUDA/C++ sources of the submission at ``path`` (a file that cannot be read has none)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Found()
    return extract_text(text, path.parent)


_BUILD_CALLS = ("load_inline", "load")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _builds(node: ast.Call) -> bool:
    """A ``load_inline`` / ``cpp_extension.load`` call."""
    name = _call_name(node)
    if name == "load":  # cpp_extension.load(name, sources, ...), not tl.load / torch.load / json.load
        f = node.func
        owner = f.value if isinstance(f, ast.Attribute) else None
        via = isinstance(owner, (ast.Name, ast.Attribute)) and ast.unparse(owner).endswith("cpp_extension")
        return via or any(k.arg == "sources" for k in node.keywords)
    return name in _BUILD_CALLS


def _root(node: ast.AST) -> str | None:
    """The name an attribute chain starts from (``ext`` of ``ext.fn``), or None."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


#: statements and expressions that choose a path: a forward holding one may skip what one of its paths calls
_BRANCHES = (ast.If, ast.IfExp, ast.Try, ast.Match)


def forward_may_skip_build(path: Path) -> bool:
    """Whether the forward of a KernelBench submission's ``ModelNew`` (or drop-in ``Model``) may run without calling
    the extension it builds when imported: the forward names none of the modules module-level builds return (nor
    the attributes ``__init__`` stores them or their functions in), or it branches (``if``, a conditional
    expression, ``try``, ``match``), so that a path the harness takes may not reach them.  A forward that calls
    the extension on its one straight path needs the GPU; nothing is worth running on the CPU then.

    >>> import tempfile
    >>> head = "ext = load_inline(name='m', cpp_sources='', cuda_sources='x')\\nclass ModelNew:\\n"
    >>> init = "    def __init__(self):\\n        self.op = ext.f\\n"
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "s.py"
    ...     _ = p.write_text(head + init + "    def forward(self, x):\\n        return self.op(x)\\n")
    ...     straight = forward_may_skip_build(p)
    ...     _ = p.write_text(head + init + "    def forward(self, x):\\n        if self.training:\\n"
    ...                      "            return x + 1\\n        return self.op(x)\\n")
    ...     (straight, forward_may_skip_build(p))
    (False, True)
    """
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return False
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and (
            (isinstance(node.value, ast.Call) and _builds(node.value)) or _root(node.value) in names
        ):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    cls = classes.get("ModelNew") or classes.get("Model")
    if cls is None or not names:
        return False
    methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    forward = methods.get("forward")
    if forward is None:
        return False
    held: set[str] = set()  # self.<attr> holding the module or one of its functions
    for f in methods.values():
        for n in ast.walk(f):
            if isinstance(n, ast.Assign) and any(_root(x) in names for x in ast.walk(n.value)):
                for t in n.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        held.add(t.attr)
    uses = any(
        (isinstance(n, ast.Name) and n.id in names)
        or (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" and n.attr in held)
        for n in ast.walk(forward)
    )
    return not uses or any(isinstance(n, _BRANCHES) for n in ast.walk(forward))


def built_at_import(path: Path, *, unguarded: bool = False) -> bool | None:
    """Whether the submission calls ``load_inline`` / ``load`` when it is imported (at module level or in a
    class body), rather than only inside a function; ``None`` when it makes no such call or cannot be read.
    With ``unguarded``, a call inside a ``try`` statement does not count either: a failed build there is the
    submission's to catch, while one outside any ``try`` fails the import itself.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "s.py"
    ...     _ = p.write_text("def f():\\n    return load_inline(name='m', cpp_sources='', cuda_sources='x')\\n")
    ...     lazy = built_at_import(p)
    ...     _ = p.write_text("m = load_inline(name='m', cpp_sources='', cuda_sources='x')\\n")
    ...     (lazy, built_at_import(p))
    ...     _ = p.write_text("try:\\n    m = load_inline('m', '', '')\\nexcept Exception:\\n    m = None\\n")
    ...     caught = (built_at_import(p), built_at_import(p, unguarded=True))
    (False, True)
    >>> caught
    (True, False)
    """
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    found: list[bool] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call) and _builds(child):
                found.append(not nested)
            visit(child, nested or isinstance(child, _SCOPES) or (unguarded and isinstance(child, ast.Try)))

    visit(tree, False)
    return any(found) if found else None
