"""Hide the capturing machine's own paths in recorded output.

Fixtures, corpus cases and knowledge-base records keep a tool's output verbatim, but the places
that only say where things were installed on the machine that captured them (a virtual
environment, the checkout, a scratch folder, the home directory) are replaced by stable names::

    /home/ana/venvs/k/lib/python3.11/site-packages/torch/  ->  <venv>/lib/python3.11/site-packages/torch/
    /home/ana/venvs/k/bin/python                            ->  <venv>/bin/python
    /home/ana/src/kdiag/harness/kernel.py                   ->  <repo>/harness/kernel.py
    /tmp/tmpa1b2c3/kernel.cu                                ->  <tmp>/kernel.cu
    /home/ana/notes.txt                                     ->  ~/notes.txt

Only prefixes are replaced; file names, line numbers and everything the diagnosis reads stay as
they were, so a redacted record classifies exactly like the original (collectors recognise
``site-packages/``, ``harness/`` and file suffixes, never a machine's own prefix).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: any interpreter's library folders: ``/any/prefix/lib/python3.X/site-packages/`` and its stdlib
_SITE = re.compile(r"(?<![\w<>~.-])/[^\s\"'<>:]*?/lib/(python3\.\d+)/(site|dist)-packages/")
_STDLIB = re.compile(r"(?<![\w<>~.-])/[^\s\"'<>:]*?/lib/(python3\.\d+)/")
_INCLUDE = re.compile(r"(?<![\w<>~.-])/[^\s\"'<>:]*?/include/(python3\.\d+)")

REPO = Path(__file__).resolve().parent.parent


def _prefixes(extra: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(machine prefix, stable name), longest first so a venv inside the checkout becomes <venv>."""
    pairs = list(extra)
    for prefix in {sys.prefix, os.environ.get("VIRTUAL_ENV", "")}:
        if prefix and prefix != "/usr":
            pairs.append((prefix, "<venv>"))
    pairs.append((str(REPO), "<repo>"))
    tmp = tempfile.gettempdir()
    if tmp not in ("", "/"):
        pairs.append((tmp, "<tmp>"))
    home = os.path.expanduser("~")
    if home not in ("", "/", "~"):
        pairs.append((home, "~"))
    seen: dict[str, str] = {}
    for prefix, name in pairs:
        prefix = prefix.rstrip("/")
        if prefix and prefix not in seen:
            seen[prefix] = name
    return sorted(seen.items(), key=lambda p: len(p[0]), reverse=True)


def redact_paths(text: str, *, extra: Iterable[tuple[str, str]] = ()) -> str:
    """``text`` with this machine's install, checkout, scratch and home prefixes replaced.

    ``extra`` adds (prefix, name) pairs, e.g. a capture script's scratch folder as ``<scratch>``.
    A prefix is replaced only where a path starts with it (followed by ``/`` or the path's end).
    """
    for prefix, name in _prefixes(extra):
        text = re.sub(r"(?<![\w/.~<>-])" + re.escape(prefix) + r"(?=[/\s\"':,;)\]]|$)", name.replace("\\", r"\\"), text)
    text = _SITE.sub(lambda m: f"<venv>/lib/{m.group(1)}/{m.group(2)}-packages/", text)
    text = _STDLIB.sub(lambda m: f"<python>/lib/{m.group(1)}/", text)
    return _INCLUDE.sub(lambda m: f"<python>/include/{m.group(1)}", text)
