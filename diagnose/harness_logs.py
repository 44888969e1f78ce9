"""Batch logs that hold many programs' output, one section per program, split into one record per program.

TritonBench's evaluation scripts (``EVAL/eval_T/0_call_acc.py`` and its siblings) run each generated module in a
subprocess and print, for every module, its standard output and its standard error under two headers of their own:
``=== Output for NAME on GPU N ===`` and ``=== Errors for NAME on GPU N ===``.  One such log holds a whole run; read
whole, one module's traceback would stand for all of them.  Here each module is a record of its own, with the text of
its two sections; the run's banner before the first header is not any module's, and the summary after the last one
(``Correct execution rate: 12.50%``, the ``Deleted NAME`` lines of the files it removed) is cut from the module before it.

>>> log = '''banner
... === Output for a.py on GPU 0 ===
...
... === Errors for a.py on GPU 0 ===
... NameError: name 'Optional' is not defined
... === Output for b.py on GPU 1 ===
... ok
... === Errors for b.py on GPU 1 ===
...
... Deleted a.py
... Correct execution rate: 50.00%
... '''
>>> [(name, body.strip()) for name, body in sections(log)]
[('a.py', "NameError: name 'Optional' is not defined"), ('b.py', 'ok')]
>>> sections("=== Output for a.py ===") is None
True
"""

from __future__ import annotations

import re

#: TritonBench's headers: ``print(f"=== Output for {file_name} on GPU {gpu_id} ===")`` and the same for ``Errors``
_HEADER = re.compile(r"^=== (?P<part>Output|Errors) for (?P<name>\S[^\n]*?) on GPU \d+ ===[ \t]*\r?$", re.M)
#: what the script prints after the last module: the files it deleted, its rate, the list of modules that ran
_TRAILER = re.compile(r"^(?:Deleted \S[^\n]*|Correct execution rate: [\d.]+%|Above is \w+ test for \S[^\n]*)\r?$", re.M)


def sections(text: str) -> list[tuple[str, str]] | None:
    """``(module, its output and errors)`` per module, in the log's order, or None when the log has no headers.  A
    module named again after another one's sections (a second run in the same log) is a record of its own."""
    if "=== " not in text or " on GPU " not in text:
        return None
    hits = list(_HEADER.finditer(text))
    if not hits:
        return None
    found: list[tuple[str, str]] = []
    for i, m in enumerate(hits):
        end = hits[i + 1].start() if i + 1 < len(hits) else len(text)
        body = text[m.end() : end].strip("\r\n")
        trailer = _TRAILER.search(body)  # after a run's last module (a log may hold several runs)
        body = body[: trailer.start()] if trailer else body
        # a module's errors join its output; the same name again after its errors is another run's module
        if found and found[-1][0] == m["name"] and m["part"] == "Errors" and hits[i - 1]["part"] == "Output":
            found[-1] = (m["name"], found[-1][1] + "\n" + body)
        else:
            found.append((m["name"], body))
    return found
