r"""A kernel written in PTX, checked with the installed PTX assembler: the driver's "PTX JIT compilation failed" says
nothing of why, ``ptxas`` names the line.

The driver compiles PTX it is given (``cuModuleLoadData``, CuPy's ``RawModule(code=...)`` of a ``.ptx``, a harness that
asks a model to write PTX) with its own copy of the assembler; a text it cannot assemble comes back as
``CUDA_ERROR_INVALID_PTX`` ("a PTX JIT compilation failed"), which is the text's fault or, for a PTX ISA version newer
than the driver knows, the driver's.  Assembling the same text with ``ptxas`` tells the two apart: an error on a line of
the text (a syntax error, an instruction without its type, a register that shadows a special one) is the PTX's own;
a text that assembles is not.

>>> is_ptx(".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k(\n)\n{\n ret;\n}\n")
True
>>> target_arch(".version 7.0\n.target sm_30\n")
'sm_75'
>>> target_arch(".version 8.0\n.target sm_90a\n")
'sm_90a'
>>> first_error("ptxas /tmp/k.ptx, line 25; error   : Unexpected non-ASCII character encountered on line 25\n")
'line 25: Unexpected non-ASCII character encountered on line 25'
>>> first_error("ptxas /tmp/k.ptx, line 44; fatal   : Parsing error near 'f': syntax error\n")
"line 44: Parsing error near 'f': syntax error"
>>> first_error("ptxas fatal   : Unexpected non-ASCII character encountered on line 25\n")
'line 25: Unexpected non-ASCII character encountered on line 25'
>>> first_error("ptxas fatal   : Ptx assembly aborted due to errors\n") is None
True
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

#: a PTX module's header and an entry or function
_VERSION = re.compile(r"(?m)^\s*\.version\s+\d+\.\d+")
_ENTRY = re.compile(r"(?m)^\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\b")
_TARGET = re.compile(r"(?m)^\s*\.target\s+sm_(\d+)([af]?)")
#: the oldest GPU today's ptxas assembles for (CUDA 13 dropped sm_50 to sm_72): older targets are assembled for it,
#: which accepts every PTX written for an older target
OLDEST = 75
#: a fatal message that names the text's line in its own words (``Unexpected non-ASCII character encountered on line
#: 25``), where ptxas gives no ``FILE, line N;`` prefix
_ON_LINE = re.compile(r"\bon line (\d+)\s*$")
TIMEOUT_S = 30


def is_ptx(text: str) -> bool:
    return bool(_VERSION.search(text) and _ENTRY.search(text))


def target_arch(text: str) -> str:
    """The GPU to assemble for: the module's own ``.target``, at least :data:`OLDEST`."""
    m = _TARGET.search(text)
    if m is None:
        return f"sm_{OLDEST}"
    cc = int(m.group(1))
    return f"sm_{cc}{m.group(2)}" if cc >= OLDEST else f"sm_{OLDEST}"


def first_error(log: str) -> str | None:
    """``line N: MESSAGE`` of the assembler's first error on a line of the text (its messages read as the compiler
    collector reads ptxas's, :mod:`diagnose.collectors.compiler`), or None."""
    from diagnose.collectors import compiler

    facts = compiler.parse(log)
    for d in facts.diagnostics if facts is not None else ():
        if d.tool.startswith("ptxas") and d.severity in ("error", "fatal"):
            line = d.line or ((m := _ON_LINE.search(d.message)) and int(m.group(1)))
            if line:
                return f"line {line}: {d.message.strip()}"
    return None


def find_ptxas(env: Mapping[str, str]) -> str | None:
    """The CUDA toolkit's ptxas (PATH, CUDA_HOME, the pip wheels), else the one Triton's wheel ships for its own
    compiles (``triton/backends/nvidia/bin/ptxas``, found without importing Triton)."""
    from diagnose.envinfo import stack
    from diagnose.run.triton_names import triton_root

    root = triton_root()
    extra = (root / "backends" / "nvidia" / "bin" / "ptxas",) if root is not None else ()
    return stack.find_binary("ptxas", env, extra=extra)


def check(text: str, env: Mapping[str, str]) -> tuple[str, str | None] | None:
    """Assemble the PTX ``text``: (the assembler that ran, its first error on a line of the text, or None when the
    text assembles); None when no assembler is installed or it could not run."""
    ptxas = find_ptxas(env)
    if ptxas is None:
        return None
    with tempfile.TemporaryDirectory(prefix="kdiag-ptx-") as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run(
                [ptxas, f"--gpu-name={target_arch(text)}", str(src), "-o", str(Path(tmp) / "kernel.cubin")],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
    log = done.stdout + done.stderr
    if done.returncode == 0:
        return ptxas, None
    err = first_error(log)
    return (ptxas, err) if err else None
