"""Text from logs, made safe to draw: never parsed as markup, control characters made visible.

Compiler output is full of ``[...]`` (``[triton]``, ``[bold]`` in a Python repr) and logs carry
ANSI colour codes; drawn raw, the first would be read as styles and the second would reach the
terminal.  Every string from an input goes through :func:`visible` and into a ``rich.text.Text``
(never a markup string).

>>> visible("\\x1b[31mred\\x1b[0m [bold]x[/]")
'␛[31mred␛[0m [bold]x[/]'
>>> visible("a\\tb\\r")
'a   b␍'
"""

from __future__ import annotations

from rich.text import Text

# C0 controls (but tab) and DEL → their visible "control picture" (U+2400 + code)
_TABLE = {c: chr(0x2400 + c) for c in range(32) if c != 9} | {0x7F: "\u2421"}


def visible(s: str, *, tab: int = 4) -> str:
    return s.expandtabs(tab).translate(_TABLE)


def plain(s: str, style: str = "") -> Text:
    """A Text from input text: no markup, no escape codes."""
    return Text(visible(s), style=style, no_wrap=False)
