"""rooftui run in-process (as most tests run it) leaves the test process's signal handlers
as it found them (tests/conftest.py)."""

import signal

from rooftui.cli import main
from rooftui.cli.errors import _terminate
from tests.conftest import SIGNALS_THE_CLI_HANDLES, run_cli, signal_handlers_kept


def test_main_in_process_turns_sigterm_into_an_exit_and_the_suite_puts_the_handlers_back():
    before = {number: signal.getsignal(number) for number in SIGNALS_THE_CLI_HANDLES}
    with signal_handlers_kept():
        for number in SIGNALS_THE_CLI_HANDLES:
            signal.signal(number, signal.SIG_DFL)  # as in a process of its own
        main(["summary", "--help"])
        # the leak: what the command installed for its process outlives the call
        assert [signal.getsignal(number) for number in SIGNALS_THE_CLI_HANDLES] == [_terminate] * 2
    assert {number: signal.getsignal(number) for number in SIGNALS_THE_CLI_HANDLES} == before


def test_run_cli_leaves_no_handler_of_the_command_behind():
    before = {number: signal.getsignal(number) for number in SIGNALS_THE_CLI_HANDLES}
    for number in SIGNALS_THE_CLI_HANDLES:
        signal.signal(number, signal.SIG_DFL)
    try:
        assert run_cli("summary", "--help").returncode == 0
        assert [signal.getsignal(number) for number in SIGNALS_THE_CLI_HANDLES] == [signal.SIG_DFL] * 2
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
