"""Text from files made safe for a terminal: the one place names are escaped or cut.

Imports nothing from rooftui, so every layer may use it (see the import contract).

Kernel, NVTX, device and trace names come from other people's programs. Before any of
them reaches a terminal (tables, the TUI, error messages, notes) control characters are
shown escaped, so a profile can never move the cursor, retitle the window or write to
the clipboard (ESC, CSI, OSC 0/52). JSON and CSV outputs keep the exact text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
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


def shorten(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` cut to ``width`` characters, its end replaced by ``ellipsis`` when cut
    ("~" in ASCII mode); "" for a width below one."""
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return ellipsis[:max(width, 0)]
    return text[: width - len(ellipsis)] + ellipsis


def short_names(names: Iterable[str], width: int, ellipsis: str = "…") -> dict[str, str]:
    """Each of ``names`` as it fits ``width`` characters, printable, keeping the part
    that tells it from the others: template arguments, tile shapes, variants.

    A name that fits is shown whole. A longer one whose first ``width - 1``
    characters are its own is cut at the end. Otherwise it shares its start with
    another name (``sm90_xmma_fprop_..._tilesize64x64x64`` and ``..._tilesize128x64x32``)
    and is shown as its start, an ellipsis, and the text from the word where it first
    differs from the names it would be confused with: ``sm90_xmma_f…tilesize128x64x32_w…``.
    Returns ``{name: shown}``.
    """
    texts = {printable(name): name for name in names}
    room = width - len(ellipsis)

    def shorten(text: str, differs: int) -> str:
        if len(text) <= width:
            return text
        if differs < room:
            return text[:room] + ellipsis
        start = differs  # back to the start of that word (tile shapes are long words)
        while start > max(0, differs - 16) and text[start - 1].isalnum():
            start -= 1
        if start > 1 and text[start - 1] in "<(":  # and to the template it is an argument
            template = start - 1  # of, if that leaves room for the word that differs
            while template > 0 and (text[template - 1].isalnum() or text[template - 1] == "_"):
                template -= 1
            if differs - template <= (room - room * 2 // 5) // 2:
                start = template
        tail = text[start:]
        head = max(room * 2 // 5, room - len(tail))
        if head + len(tail) > room:
            tail = tail[: max(0, room - head - len(ellipsis))] + ellipsis
        return text[:head] + ellipsis + tail

    def first_difference(group: list[str]) -> dict[str, int]:
        # Sorted, a text shares its longest start with one of its two neighbours.
        group = sorted(group)
        differs = {}
        for i, text in enumerate(group):
            near = [group[j] for j in (i - 1, i + 1) if 0 <= j < len(group)]
            differs[text] = max((len(os.path.commonprefix([text, other])) for other in near), default=0)
        return differs

    shown = {text: shorten(text, at) for text, at in first_difference(list(texts)).items()}
    # Two names that differ again after their first difference may still look the
    # same: compare those among themselves, from where they differ, a few times.
    for _ in range(3):
        alike: dict[str, list[str]] = {}
        for text, short in shown.items():
            alike.setdefault(short, []).append(text)
        groups = [group for group in alike.values() if len(group) > 1]
        if not groups:
            break
        for group in groups:
            for text, at in first_difference(group).items():
                shown[text] = shorten(text, at)
    return {name: shown[text] for text, name in texts.items()}


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
