"""A long message cut for display: at a word boundary, its key part kept.

A log line quoted in an explanation or a fix is cut near 100 characters; what goes first is what
says nothing there (a time stamp, ``RuntimeError: CUDA error: ``, a path's directories), so the
error text itself is what shows.
"""

from __future__ import annotations

import re

MAX_TEXT = 100  # a longer string value is cut

# a path of three or more directories (`/opt/conda/.../aten/src/ATen/native/cuda/Indexing.cu`): its file name
_PATH = re.compile(r"(?<![\w.])(?:\.{1,2}|~)?(?:/[\w.+-]+){3,}/([\w.+-]+)")
# what a long message starts with that says nothing there: a log line's time stamp or `[tag]`, glog's
# `F0523 18:30:06.1 123 file.cc:34] `, Ray's worker tag `(RayWorker pid=123, ip=10.0.0.1) `, a logger's
# source location `[path/file.h:function@87] `, and `RuntimeError: CUDA error: ` (the error text is the rest)
_LEADING = re.compile(
    r"^(?:\s*\[[^\]\n]{1,40}\]\s*:?"
    r"|\s*\([^()\n]{0,80}\bpid=\d+[^()\n]{0,60}\)"
    r"|\s*\[[^\]\n]{1,200}[@:]\d+\]"
    r"|\s*\d{4}-\d\d-\d\d[ T][\d:.]+:?"
    r"|\s*[FEWI]\d{0,4}(?: [\d:.]+ +\d+)? \S+:\d+\] "
    r"|\s*(?:[A-Za-z_][\w.]*(?:Error|Exception)|CUDA error|ERROR|Error|error|FATAL|fatal|Fatal error)\s*:\s+)+"
)


def clip(text: str, width: int = MAX_TEXT) -> str:
    """A long string cut near ``width`` characters at a word boundary, its key part kept: the
    prefixes that say nothing (``RuntimeError: CUDA error: ``, a time stamp) go first, and a long
    path is shortened to its file name."""
    if len(text) <= width:
        return text
    key = _LEADING.sub("", text, count=1).strip() or text
    key = _PATH.sub(r".../\1", key)
    if len(key) <= width:
        return key
    cut = key[: width - 3]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= width // 2:  # a word boundary not too far back; else the (long) word is cut
        cut = cut[:space]
    return cut.rstrip(" \t\n,;:.-(") + "..."
