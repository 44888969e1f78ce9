r"""Candidates an autotuner tried and set aside: their errors are not the run's.

An autotuner compiles and times many configurations of one kernel and drops the ones that fail; the run goes
on with the best of the rest.  Two of them print each rejected candidate's whole error, in a block with a fixed
opening and closing line:

- TorchInductor's max-autotune (``torch/_inductor/select_algorithm.py``) logs ``Runtime error during
  autotuning: \n<the error>. \nIgnoring this choice.`` (``CUDA compilation error during autotuning:`` for a
  CUTLASS candidate that does not build): an out-of-resources Triton config, an out-of-memory benchmark;
- Helion's autotuner (``helion/autotuner/base_search.py``) checks each candidate's output against the
  default config's and logs ``Skipping config with accuracy mismatch: <config>\n<assert_close's message>\nUse
  HELION_AUTOTUNE_ACCURACY_CHECK=0 to disable this check.``

Such a block, from its opening line to its closing one, is blanked before the collectors read the log (line
numbers kept), so a candidate's "Tensor-likes are not close!" or "out of resource: shared memory" is not read
as the run's failure.  A block whose closing line is not there is kept: the log may have been cut where the run
stopped.  What follows the blocks is read as usual: an autotuner that rejected every candidate says so in its
own words (``NoConfigFound``, ``No valid triton configs``), outside them.

>>> log = '''[15s] Skipping config with accuracy mismatch: helion.Config(block_sizes=[128, 16])
... Tensor-likes are not close!
...
... Mismatched elements: 65249 / 65536 (99.6%)
... Use HELION_AUTOTUNE_ACCURACY_CHECK=0 to disable this check.
... [40s] Autotuning complete'''
>>> blank_rejected(log).splitlines()
['', '', '', '', '', '[40s] Autotuning complete']
>>> blank_rejected("Runtime error during autotuning: \nout of resource: shared memory. \nIgnoring this choice.\nok")
'\n\n\nok'
>>> cut = "Skipping config with accuracy mismatch: Config()\nTensor-likes are not close!"
>>> blank_rejected(cut) == cut
True
"""

from __future__ import annotations

import re

#: (opening line, closing line): the closing one within :data:`SPAN` lines of the opening one
_BLOCKS = (
    (
        re.compile(r"\b(?:Runtime|CUDA\s+compilation)\s+error\s+during\s+autotuning\b"),
        re.compile(r"\bIgnoring\s+this\s+choice\b"),
    ),
    (
        re.compile(r"\bSkipping\s+config\s+with\s+accuracy\s+mismatch\b"),
        re.compile(r"\bHELION_AUTOTUNE_ACCURACY_CHECK=0\b"),
    ),
)
SPAN = 60
_QUICK = ("during autotuning", "accuracy mismatch")


def blank_rejected(text: str) -> str:
    """``text`` with each rejected candidate's block (its opening line to its closing line) left as empty lines."""
    if not any(q in text for q in _QUICK):
        return text
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        for opening, closing in _BLOCKS:
            if opening.search(lines[i]):
                end = next((j for j in range(i, min(len(lines), i + SPAN)) if closing.search(lines[j])), None)
                if end is not None:
                    lines[i : end + 1] = [""] * (end + 1 - i)
                    i = end
                break
        i += 1
    return "\n".join(lines)
