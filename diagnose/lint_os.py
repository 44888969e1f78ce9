"""Lint: a rule's text on a Windows log names no Linux-only command.

``ldconfig``, ``LD_LIBRARY_PATH``, ``ldd``, ``dmesg``, a package manager of a Linux distribution and
paths under ``/usr`` or ``/etc`` do nothing for a reader on Windows.  For every match example the
collectors read as written on Windows (``log_windows``, :mod:`diagnose.collectors.host_os`), the rule's
what, why, caveats and the fix for that example's framework are rendered as a report would show them,
and each Linux-only command found is a problem: put it in a ``[[{log_windows:unless} ...]]`` segment
and give the Windows step (``where X.dll``, ``PATH``, ``os.add_dll_directory``) in a
``[[{log_windows:if} ...]]`` one.

>>> linux_commands("Run `ldconfig -p | grep cudnn` and add it to LD_LIBRARY_PATH.")
['ldconfig', 'LD_LIBRARY_PATH']
>>> linux_commands("Find it with `where cudart64_12.dll` and add the folder to PATH.")
[]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from diagnose import explain as X
from diagnose.rules import Rule, RuleProblem

_LINUX_ONLY = re.compile(
    r"\b(?:ldconfig|LD_LIBRARY_PATH|LD_PRELOAD|ldd|dmesg|modprobe|lsmod|apt-get|apt|yum|dnf|journalctl)\b"
    r"|(?<![\w.])/(?:usr|etc|proc|lib64|opt)/[\w./-]*"
)


def linux_commands(text: str) -> list[str]:
    """The Linux-only commands, variables and paths ``text`` names (each once, in order)."""
    return list(dict.fromkeys(m.group(0) for m in _LINUX_ONLY.finditer(text or "")))


def check_fix_os(rule: Rule, contexts: Sequence[tuple[int, Mapping[str, Any]]]) -> list[RuleProblem]:
    """On each match example written on Windows, the rendered texts name no Linux-only command."""
    e = rule.explain
    out = []
    for line, ctx in contexts:
        if not ctx.get("log_windows"):
            continue
        fw = X.framework(ctx) if e.fixes else None
        fix = dict(e.fixes).get(fw, e.fix) if fw else e.fix
        for key, text in (("what", e.what), ("why", e.why), ("fix", fix), ("caveats", e.caveats or "")):
            found = linux_commands(X.render(text, ctx))
            if found:
                out.append(
                    RuleProblem(
                        rule.path,
                        line,
                        f"explain.{key} names Linux-only {', '.join(found)} on a match example written on Windows: "
                        "put it in a [[{log_windows:unless} ...]] segment and give the Windows step in a "
                        "[[{log_windows:if} ...]] one",
                    )
                )
    return out
