"""Text from files made safe for a terminal: the one place names are escaped or cut.

Imports nothing from rooftui, so every layer may use it (see the import contract).

Kernel, NVTX, device and trace names come from other people's programs. Before any of
them reaches a terminal (tables, the TUI, error messages, notes) control characters are
shown escaped, so a profile can never move the cursor, retitle the window or write to
the clipboard (ESC, CSI, OSC 0/52). JSON and CSV outputs keep the exact text.
"""

from __future__ import annotations

import re

# C0 controls (tab kept as a visible escape too: it breaks column layouts), DEL, and C1.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    return _NAMED.get(ch, f"\\x{ord(ch):02x}")


def printable(text: object) -> str:
    """`text` with every control character shown as an escape: "\\e]52;c;..." not ESC ]52."""
    s = text if isinstance(text, str) else str(text)
    return _CONTROL.sub(_escape, s)


def shorten(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` cut to ``width`` characters, its end replaced by ``ellipsis`` when cut
    ("~" in ASCII mode); "" for a width below one."""
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return ellipsis[:max(width, 0)]
    return text[: width - len(ellipsis)] + ellipsis
