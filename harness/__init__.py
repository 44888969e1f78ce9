"""The child side of ``kdiag run``: code that runs *inside* the attempt's processes.

Nothing in ``diagnose/`` imports this package; the parent starts ``python -m harness.<role>``
in a child (``inputs``, ``kernel``, ``check``), and the children talk back only through
files: ``.npy`` arrays written with ``allow_pickle=False`` and JSON manifests.  This package may
import torch and triton; the parent never does.

- :mod:`harness.arrays` — tensors ↔ ``.npy`` + manifest entries (bf16/fp8 as raw bits);
- :mod:`harness.protocol` — the target protocols (native, KernelBench, GPU MODE) behind one face;
- :mod:`harness.sentinel` — ``torch.empty`` and friends hand out sentinel-filled memory in the
  kernel child, so an output the kernel never wrote is visible;
- :mod:`harness.inputs` (which runs :mod:`harness.reference` once the inputs are saved) and
  :mod:`harness.kernel` — the children of every attempt; :mod:`harness.check` — a problem's own checker.
"""
