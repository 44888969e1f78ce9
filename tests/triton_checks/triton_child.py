"""Run corpus kernels in real children under ``TRITON_INTERPRET=1`` with ``harness.triton_hooks``.

Shared by the tests in this folder (not a test module itself).  Every child is a fresh
``python -c`` with the repository on ``PYTHONPATH``, its own ``TRITON_CACHE_DIR``, and an output
folder; it calls ``install()``, imports the kernel module, runs ``kernel(*make_inputs("cpu",
**size))`` for each size and calls ``finish()``.  Children start together (two cores: they spend
most of their time importing torch and compiling), and each result is read once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "corpus" / "kernels"

CHILD = """
import importlib.util, json, sys
from pathlib import Path
from harness import triton_hooks
out, path, sizes, target, guard = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
tolerance = json.loads(sys.argv[6])  # dtype -> [atol, rtol]
triton_hooks.install(out, target_gpu=target)
spec = importlib.util.spec_from_file_location("kernel_under_test", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
results = []
for size in sizes:
    inputs = mod.make_inputs("cpu", **size)
    if guard:
        from harness import canary
        inputs = tuple(canary.guard(t, f"input{i}") for i, t in enumerate(inputs))
    got = mod.kernel(*inputs)
    ref = mod.reference(*inputs)
    atol, rtol = tolerance.get(str(ref.dtype).replace("torch.", ""), (0.0, 0.0))
    diff = (got.float() - ref.float()).abs()
    # worst |got - ref| / (atol + rtol * |ref|): <= 1 is within the comparison's default tolerance
    results.append({"max_abs": float(diff.max()), "tolerance_ratio": float((diff / (atol + rtol * ref.float().abs())).max())})
triton_hooks.finish()
(out / "maxdiff.json").write_text(json.dumps(results))
"""

CANARY_CHILD = """
import json, sys
from pathlib import Path
from harness import triton_hooks, canary
out = Path(sys.argv[1])
triton_hooks.install(out)
sys.path.insert(0, sys.argv[2])
import torch, triton
import missing_mask_tail as m
x, y = m.make_inputs("cpu", n=1000)
xg, yg = canary.guard(x, "x"), canary.guard(y, "y")
res = canary.guard(torch.zeros(1000), "out")  # the output, guarded: the unmasked store lands in its guard
m.scale_add[(triton.cdiv(1000, m.BLOCK),)](xg, yg, res, 1000, BLOCK=m.BLOCK)
ok = bool(torch.equal(res, 2.0 * x + y))
triton_hooks.finish()
(out / "result.json").write_text(json.dumps({"values_ok": ok, "check": canary.check()}))
"""


def child_env(tmp: Path, *, interpret: bool = True) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "PYTEST_"))}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    env.update(
        TRITON_CACHE_DIR=str(tmp / "triton-cache"),
        PYTHONPATH=str(ROOT),
        PYTHONFAULTHANDLER="1",
        OMP_NUM_THREADS="1",
    )
    return env


@dataclass
class Child:
    name: str
    out: Path
    proc: subprocess.Popen[bytes]
    _done: bool = False
    rc: int | None = None
    output: str = ""

    def wait(self, timeout: float = 120) -> Child:
        if not self._done:
            stdout, _ = self.proc.communicate(timeout=timeout)
            self.rc, self.output, self._done = self.proc.returncode, stdout.decode(errors="replace"), True
        return self

    def checks(self) -> dict[str, Any]:
        self.wait()
        assert self.rc == 0, f"{self.name}: exit {self.rc}\n{self.output[-4000:]}"
        data: dict[str, Any] = json.loads((self.out / "triton_checks.json").read_text())
        return data

    def json(self, name: str) -> Any:
        self.wait()
        return json.loads((self.out / name).read_text())


def _as_the_runner_starts_children() -> None:
    """The signal state kdiag's runner gives a child (``diagnose/runner/reaper.py``): default SIGINT and SIGTERM,
    nothing blocked, whatever the test process that starts it inherited or set."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())


def start(name: str, code: str, *args: str, base: Path | None = None, interpret: bool = True) -> Child:
    base = base or Path(tempfile.mkdtemp(prefix="kdiag-triton-checks-"))
    out = base / name
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(out), *args],
        cwd=ROOT,
        env=child_env(base, interpret=interpret),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_as_the_runner_starts_children,
    )
    return Child(name, out, proc)


def start_kernel(
    name: str,
    module: str,
    sizes: list[dict[str, int]] | None = None,
    *,
    target: str = "H100",
    guard: bool = False,
    base: Path | None = None,
    interpret: bool = True,
) -> Child:
    path = KERNELS / module
    if sizes is None:
        sizes = _declared_sizes(path)
    try:
        from diagnose.run.compare import DEFAULT_TOLERANCE
    except ImportError:  # the comparison's own table, as of this writing
        DEFAULT_TOLERANCE = {"float32": (1e-4, 1e-4), "float16": (1e-3, 2e-3)}
    tolerance = json.dumps(DEFAULT_TOLERANCE)
    return start(
        name,
        CHILD,
        str(path),
        json.dumps(sizes),
        target,
        "1" if guard else "0",
        tolerance,
        base=base,
        interpret=interpret,
    )


def _declared_sizes(path: Path) -> list[dict[str, int]]:
    """SIZES of a kernel module, read without importing it (the parent imports no torch)."""
    import ast

    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SIZES" for t in node.targets):
            value: list[dict[str, int]] = ast.literal_eval(_dicts_as_literals(node.value))
            return value
    return [{}]


def _dicts_as_literals(node: Any) -> str:
    import ast

    class ToLiteral(ast.NodeTransformer):
        def visit_Call(self, call: ast.Call) -> Any:
            if isinstance(call.func, ast.Name) and call.func.id == "dict" and not call.args:
                keys: list[ast.expr | None] = [ast.Constant(k.arg) for k in call.keywords]
                return ast.Dict(keys=keys, values=[self.visit(k.value) for k in call.keywords])
            return self.generic_visit(call)

    return ast.unparse(ToLiteral().visit(node))
