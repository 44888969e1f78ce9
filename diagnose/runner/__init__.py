"""The runner: start a target under controlled conditions and capture what it left behind.

- :mod:`diagnose.runner.childenv` — the child's environment, a pure function;
- :mod:`diagnose.runner.process` — ``run(RunRequest) -> Outcome``: one attempt, supervised;
- :mod:`diagnose.runner.output` — bounded stdout/stderr capture (head and tail kept);
- :mod:`diagnose.runner.reaper` — the small init that sits between kdiag and the target.

Nothing here imports torch, triton or cupy: the children do the GPU work.
"""

from __future__ import annotations

from diagnose.runner.childenv import child_env, ensure_child_dirs
from diagnose.runner.output import StreamCapture, read_text
from diagnose.runner.process import Outcome, RunRequest, detect_isolation, run

__all__ = [
    "Outcome",
    "RunRequest",
    "StreamCapture",
    "child_env",
    "detect_isolation",
    "ensure_child_dirs",
    "read_text",
    "run",
]
