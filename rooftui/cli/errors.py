"""How the CLI ends: one line on stderr for every failure, never a traceback unless asked.

- A user-fixable problem (:class:`rooftui.errors.RooftuiError`) is one line, exit code 2.
- Anything else is a bug in rooftui: one line naming the exception, exit code 1, with a
  hint to report it and to re-run with ``--debug`` (or ``ROOFTUI_DEBUG=1``) for the traceback.
- SIGTERM (and SIGHUP) end the run through an exception, like SIGINT does, so ``finally``
  blocks delete temporary files and ``subprocess.run`` kills the report reader child.

Every message goes through ``printable()``: a file name or a value from a file cannot
write escape sequences to the terminal or split the line.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from typing import NoReturn

import click

from rooftui.errors import one_line
from rooftui.views.text import printable

DEBUG_FLAG = "--debug"


def take_debug_flag(argv: list[str] | None) -> tuple[list[str] | None, bool]:
    """``argv`` without ``--debug`` (accepted anywhere), and whether it or ROOFTUI_DEBUG was given."""
    debug = os.environ.get("ROOFTUI_DEBUG", "") not in ("", "0")
    args = list(sys.argv[1:] if argv is None else argv)
    if DEBUG_FLAG in args[: args.index("--") if "--" in args else len(args)]:
        args.remove(DEBUG_FLAG)
        return args, True
    return (argv if argv is None else args), debug


def echo_error(message: str) -> None:
    """``rooftui: MESSAGE`` on stderr, on one line, with control characters escaped."""
    click.echo(f"rooftui: {printable(message)}", err=True)


def _terminate(signum: int, _frame) -> None:
    raise SystemExit(128 + signum)


def install_signal_handlers() -> None:
    """Turn SIGTERM/SIGHUP into SystemExit so cleanup runs (SIGINT already raises)."""
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) in (signal.SIG_DFL, None):
            try:
                signal.signal(number, _terminate)
            except ValueError:  # not the main thread (an embedding program): leave it alone
                return


def last_resort(err: BaseException, debug: bool) -> NoReturn:
    """Any exception nothing else handled: one line and exit 1 (the traceback with --debug)."""
    if debug:
        traceback.print_exception(err)
    else:
        echo_error(
            f"internal error: {type(err).__name__}: {one_line(err)} — this is a bug in "
            f"rooftui; please report it with the output of the same command run "
            f"with {DEBUG_FLAG}"
        )
    sys.exit(1)
