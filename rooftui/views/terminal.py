"""What the user's terminal can draw, decided from the environment alone: no Textual
here, so the CLI can decide before any screen is imported."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

# Terminals whose character set has no braille and no box drawing (the VT100 family;
# the Linux console, whose fonts hold 256 or 512 glyphs, braille not among them;
# `dumb` and the like). Compared by TERM's base name: vt100-am is a vt100.
TERMS_WITHOUT_UNICODE = frozenset(
    {"dumb", "vt52", "vt100", "vt102", "vt220", "vt320", "linux", "ansi", "cons25", "sun"}
)


def terminal_wants_ascii(environ: Mapping[str, str]) -> bool:
    """True when the locale is not UTF-8 or TERM cannot draw braille and box lines.

    The locale is the first of LC_ALL, LC_CTYPE and LANG that is set, as for every C
    program. Python itself turns a C locale into LC_CTYPE=C.UTF-8 (PEP 538); that
    coerced value, next to a LANG of C or POSIX (or none), still counts as C.
    """
    term = environ.get("TERM", "").split("-")[0]
    if term in TERMS_WITHOUT_UNICODE:
        return True
    lang = environ.get("LANG", "")
    ctype = environ.get("LC_CTYPE", "")
    if not environ.get("LC_ALL") and ctype == "C.UTF-8" and lang in ("", "C", "POSIX"):
        ctype = ""  # coerced by Python, not chosen
    chosen = environ.get("LC_ALL") or ctype or lang
    return not re.search(r"utf-?8", chosen, re.IGNORECASE)


def tmux_option(name: str) -> str | None:
    """The value of tmux's global option ``name`` ("on", "external", "off"), None when
    tmux cannot be asked (not installed, no server, slow)."""
    import subprocess

    try:
        done = subprocess.run(
            ["tmux", "show-options", "-gv", name], capture_output=True, text=True, timeout=0.5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def clipboard_message(
    name: str, environ: Mapping[str, str], option: Callable[[str], str | None] = tmux_option
) -> str:
    """What ``y`` tells the user after sending ``name`` by OSC 52, which no terminal
    acknowledges: that it was sent, and inside tmux whether tmux passes it on (only with
    ``set-clipboard on``, or ``allow-passthrough on`` for the wrapped copy; tmux's
    default, ``external``, drops it)."""
    if not environ.get("TMUX"):
        return f"sent to the clipboard by OSC 52 (if the terminal allows it): {name}"
    clipboard, passthrough = option("set-clipboard"), option("allow-passthrough")
    if clipboard == "on" or passthrough in ("on", "all"):
        return f"sent to the clipboard by OSC 52 through tmux: {name}"
    said = f"set-clipboard is {clipboard}" if clipboard else "its set-clipboard is unknown"
    return (
        f"sent by OSC 52, but tmux passes it on only with set-clipboard on ({said}; "
        f"tmux set -g set-clipboard on): {name}"
    )
