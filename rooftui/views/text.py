"""Text from files made safe for a terminal: the one place names are escaped or cut.

Kernel, NVTX, device and trace names come from other people's programs. Before any of
them reaches a terminal (tables, the TUI, error messages, notes) control characters are
shown escaped, so a profile can never move the cursor, retitle the window or write to
the clipboard (ESC, CSI, OSC 0/52). JSON and CSV outputs keep the exact text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich is imported where used: this module stays cheap to import
    from rich.console import Console
    from rich.text import Text

# C0 controls (tab kept as a visible escape too: it breaks column layouts), DEL, and C1.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    return _NAMED.get(ch, f"\\x{ord(ch):02x}")


def printable(text: object) -> str:
    """`text` with every control character shown as an escape: "\\e]52;c;..." not ESC ]52."""
    s = text if isinstance(text, str) else str(text)
    return _CONTROL.sub(_escape, s)


def plain(text: object, style: str = "") -> Text:
    """``text`` from a file as a rich Text: control characters escaped, never read as markup.

    Use it for every table cell or line that holds a name; a plain ``str`` handed to rich
    is parsed as markup (``[lambda(int) (instance 1)]`` would vanish, ``[/x]`` would raise).
    """
    from rich.text import Text

    return Text(printable(text), style=style)


def markup_escaped(text: object) -> str:
    """``text`` from a file made safe to put inside a rich markup string."""
    from rich.markup import escape

    return escape(printable(text))


def safe_console(**kwargs: Any) -> Console:
    """A rich Console for command output that cannot pass a control character through.

    The views escape names before layout (``plain``); this is the net under them:
    every text segment rich is about to write has its control characters (newlines
    aside) escaped, and emoji codes such as ``:fire:`` in names stay text.
    """
    from rich.console import Console
    from rich.segment import Segment

    class _SafeConsole(Console):
        def render(self, renderable, options=None):  # type: ignore[override]
            for segment in super().render(renderable, options):
                if segment.control or not _CONTROL_BUT_NEWLINE.search(segment.text):
                    yield segment
                else:
                    yield Segment(_CONTROL_BUT_NEWLINE.sub(_escape, segment.text), segment.style)

    kwargs.setdefault("emoji", False)
    return _SafeConsole(**kwargs)
