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


#: OpenEvolve's evaluator (and the searches built on it) logs each program it scored on one line:
#: ``logger.info(f"Evaluated program {program_id} in {elapsed:.2f}s: {format_metrics_safe(metrics)}")``, the metrics as
#: ``name=value`` pairs joined by ", " (an ``error`` among them when the evaluation failed)
_EVALUATED = re.compile(r"^[^\n]*?\bEvaluated program (?P<id>[\w.:-]+) in [\d.]+s: (?P<metrics>[^\n]*?)\r?$", re.M)
#: the program's code, as such a search prints it after a failed evaluation (its retry prompt's "Generated Solution")
_SOLUTION = re.compile(r"^-{3,} Generated Solution -{3,}[ \t]*\r?\n(?P<code>.*?)^-{6,}[ \t]*\r?$", re.M | re.S)
#: the metrics that say how the program did against the reference (a search's own bookkeeping, such as ``validity``
#: or ``combined_score`` of a search-strategy program, says nothing of a kernel)
CORRECTNESS_METRICS = ("pass_rate", "correctness", "correct", "passed", "success_rate")


def evaluated_programs(text: str) -> list[tuple[str, dict[str, str], str, str | None]] | None:
    """``(program id, its metrics, its part of the log, its code or None)`` per program an evolutionary search's log
    says it evaluated, in the log's order; None when the log has no such line.  A program's part runs from its line
    to the next program's, without the code the search printed (that is the program, not its output).

    >>> log = '''06:14:18 [evaluator] Evaluated program a1 in 8.59s: combined_score=88.8, pass_rate=1.0000
    ... 06:15:27 [evaluator] Evaluated program b2 in 5.21s: combined_score=0.0, pass_rate=0.7222, error=failed (13/18), x=1
    ... 06:15:27 WARNING [manager] Evaluation failed (attempt 1/3)
    ... ----- Generated Solution -----
    ... import torch
    ... --------------------------
    ... '''
    >>> [(p, m, c) for p, m, _, c in evaluated_programs(log)]
    [('a1', {'combined_score': '88.8', 'pass_rate': '1.0000'}, None), ('b2', {'combined_score': '0.0', 'pass_rate': '0.7222', 'error': 'failed (13/18)', 'x': '1'}, 'import torch\\n')]
    >>> evaluated_programs("Evaluated 3 programs") is None
    True
    """
    if "Evaluated program " not in text:
        return None
    hits = list(_EVALUATED.finditer(text))
    if not hits:
        return None
    out: list[tuple[str, dict[str, str], str, str | None]] = []
    for i, m in enumerate(hits):
        part = text[m.start() : hits[i + 1].start() if i + 1 < len(hits) else len(text)]
        code = None
        if (sol := _SOLUTION.search(part)) is not None:
            code = sol["code"]
            part = part[: sol.start()] + part[sol.end() :]
        metrics: dict[str, str] = {}
        for pair in re.split(r", (?=\w+=)", m["metrics"].strip()):
            name, sep, value = pair.partition("=")
            if sep and name.strip():
                metrics[name.strip()] = value.strip()
        out.append((m["id"], metrics, part.rstrip("\n") + "\n", code))
    return out


def program_passed(metrics: dict[str, str]) -> bool | None:
    """Whether a program's metrics say it passed (no error and every test right), failed, or say nothing of
    correctness (None: a search's bookkeeping, not a kernel's evaluation)."""
    figures = [metrics[k] for k in CORRECTNESS_METRICS if k in metrics]
    if not figures:
        return None
    if metrics.get("error", "").strip() not in ("", "None"):
        return False
    try:
        return all(float(v) >= 1.0 for v in figures)
    except ValueError:
        return all(v.strip().lower() in ("true", "1", "1.0") for v in figures)
