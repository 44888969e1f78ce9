"""A JIT extension build that waits on its build lock: PyTorch's ``torch.utils.cpp_extension`` loader.

``load()`` and ``load_inline()`` (and every package that JIT-builds its CUDA ops through them: DeepSpeed,
apex's JIT path, many research repositories) build into ``<extensions root>/<name>/``.  One process takes the
build lock (``<name>/lock``, :class:`torch.utils.file_baton.FileBaton`: a file created with ``O_EXCL``) and
builds; every other process spins in ``FileBaton.wait()`` until the file is gone.  A builder killed while it
held the lock (Ctrl+C, the OOM killer, a cancelled Slurm job, a pod restart) leaves the file behind, and then
every later load waits forever on a lock that no process holds.

The log shows it three ways (torch/utils/cpp_extension.py and torch/utils/file_baton.py):

- the warning newer releases print after a while: ``Waited on lock file "PATH" for N seconds.``;
- a stack dumped from the waiting process (Ctrl+C, faulthandler, py-spy) inside ``file_baton.py`` ``wait``;
- the log ends at the loader's verbose ``Using DIR as PyTorch extensions root...``: the process that builds
  prints its next steps (``Emitting ninja build file``, ``Building extension module``) and one that finds the
  module built prints ``Loading extension module``, so a log of processes that all stop right there is
  waiting on the lock.

The fact is the lock file the log names, else the extensions root (where ``<name>/lock`` is).

>>> wait_at('Using /root/.cache/torch_extensions/py310_cu118 as PyTorch extensions root...\\n')
'/root/.cache/torch_extensions/py310_cu118'
>>> wait_at('UserWarning: Waited on lock file "/home/u/.cache/torch_extensions/ops/lock" for 300 seconds.')
'/home/u/.cache/torch_extensions/ops/lock'
>>> wait_at('Using /tmp/ext as PyTorch extensions root...\\nLoading extension module fused_adam...\\n') is None
True
>>> wait_at('Using /tmp/ext as PyTorch extensions root...\\nEmitting ninja build file /tmp/ext/op/build.ninja\\n') is None
True
"""

from __future__ import annotations

import re

#: cpp_extension.py's verbose line naming the extensions root (print in 1.x, logger.info in 2.x)
_ROOT = re.compile(r"Using\s+(\S[^\n]*?)\s+as PyTorch extensions root\.\.\.")
#: file_baton.py's warning after warn_after_seconds
_WAITED = re.compile(r'Waited on lock file "([^"\n]+)" for')
#: a stack frame of FileBaton.wait()
_FRAME = re.compile(r'file_baton\.py", line \d+,? in wait\b')


def wait_at(text: str) -> str | None:
    """The lock file (or the extensions root) a JIT extension load waits on, or None."""
    if "PyTorch extensions root" not in text and "file_baton" not in text and "Waited on lock file" not in text:
        return None
    waited = _WAITED.search(text)
    if waited:
        return waited[1]
    roots = list(_ROOT.finditer(text))
    if _FRAME.search(text):
        return roots[-1][1] if roots else "torch/utils/file_baton.py"
    if roots and not text[roots[-1].end() :].strip():
        return roots[-1][1]
    return None
