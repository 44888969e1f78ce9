"""A GPU MODE problem's files, importable by the names its ``task.yml`` gives them, in place.

GPU MODE's runner copies a problem's files into one folder before it runs (``files:`` in
``task.yml``: ``{"name": "utils.py", "source": "../utils.py"}``, the submission as
``"@SUBMISSION@"``).  kdiag moves nothing: a finder on ``sys.meta_path`` answers ``import utils``
with the file ``files:`` names, so ``reference.py``'s ``from utils import ...`` works where the
problem lies.  The submission's entry is registered only in the kernel child (``with_submission``):
the trusted children never import it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType


class _Files(importlib.abc.MetaPathFinder):
    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        source = self.files.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def install(files: Sequence[Sequence[str]] | None, submission: str | None, *, with_submission: bool) -> list[str]:
    """Register ``files`` (module name, file); the submission's entry only ``with_submission``."""
    mapping: dict[str, Path] = {}
    for name, source in files or ():
        if submission is not None and Path(source).resolve() == Path(submission).resolve() and not with_submission:
            continue
        mapping[str(name)] = Path(source)
    if mapping:
        sys.meta_path.insert(0, _Files(mapping))
    return sorted(mapping)
