"""ASCII by itself where the terminal cannot draw Unicode; `--unicode` and `--ascii`
decide otherwise (a checkbox in ASCII, and the timeline opened from the explorer:
test_dialogs_ascii.py)."""

from __future__ import annotations

import pytest

from rooftui.views.terminal import terminal_wants_ascii
from tests.tui.conftest import screen_text

UTF8 = {"TERM": "xterm-256color", "LANG": "en_US.UTF-8"}


@pytest.mark.parametrize(
    ("environ", "ascii_mode"),
    [
        (UTF8, False),
        ({**UTF8, "LANG": "C"}, True),
        ({**UTF8, "LANG": "en_US.ISO-8859-1"}, True),
        ({**UTF8, "LC_ALL": "C"}, True),  # LC_ALL wins over LANG
        ({"TERM": "xterm", "LANG": "C", "LC_ALL": "de_DE.utf8"}, False),
        ({"TERM": "xterm", "LANG": "C", "LC_CTYPE": "C.UTF-8"}, True),  # Python's coercion of C
        ({"TERM": "xterm", "LANG": "en_US.UTF-8", "LC_CTYPE": "C.UTF-8"}, False),
        ({"TERM": "xterm"}, True),  # no locale at all is C
        ({**UTF8, "TERM": "vt100"}, True),
        ({**UTF8, "TERM": "vt220-am"}, True),
        ({**UTF8, "TERM": "linux"}, True),
        ({**UTF8, "TERM": "screen-256color"}, False),
        ({**UTF8, "TERM": "tmux-256color"}, False),
    ],
)
def test_ascii_where_the_locale_is_not_utf8_or_term_cannot_draw(environ, ascii_mode):
    assert terminal_wants_ascii(environ) is ascii_mode


# What `--ascii`/`--unicode` and the terminal decide, for every command that draws a screen.
ASCII_DECISIONS = pytest.mark.parametrize(
    ("arguments", "environ", "ascii_mode"),
    [
        ((), {"LANG": "C", "TERM": "xterm"}, True),
        (("--unicode",), {"LANG": "C", "TERM": "vt100"}, False),
        (("--ascii",), UTF8, True),
        ((), UTF8, False),
    ],
)


def set_terminal(monkeypatch, environ: dict[str, str]) -> None:
    """The locale and TERM of ``environ`` and nothing else."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)


@ASCII_DECISIONS
def test_open_decides_ascii_from_the_terminal_unless_told(monkeypatch, arguments, environ, ascii_mode):
    import rooftui.views.tui.app as app_module
    from rooftui.cli import main

    set_terminal(monkeypatch, environ)
    made = []

    class NotRun:
        load_error = None

        def run(self) -> None:
            pass

    def make_app(reports, **options):
        made.append(options["ascii_mode"])
        return NotRun()

    monkeypatch.setattr(app_module, "make_app", make_app)
    main(["open", *arguments])
    assert made == [ascii_mode]


@ASCII_DECISIONS
def test_timeline_tui_decides_ascii_as_the_explorer_does(monkeypatch, arguments, environ, ascii_mode):
    monkeypatch.setattr("rooftui.cli.terminal.has_terminal", lambda: True)  # in a terminal
    import rooftui.views.tui.screens.timeline as timeline_module
    from rooftui.cli import main
    from tests.tui.conftest import TRACE

    set_terminal(monkeypatch, environ)
    made = []
    monkeypatch.setattr(
        timeline_module, "run_timeline_app", lambda analysis, ascii_mode: made.append(ascii_mode)
    )
    main(["timeline", str(TRACE), "--tui", *arguments])
    assert made == [ascii_mode]


async def test_the_timeline_in_ascii_draws_every_character_in_ascii():
    # on its own (`timeline --tui`); opened from the explorer: test_dialogs_ascii.py
    from rooftui.timeline import analyze_trace
    from rooftui.views.tui.screens.help import HelpScreen
    from rooftui.views.tui.screens.timeline import TimelineScreen, make_timeline_app
    from tests.tui.conftest import TRACE

    app = make_timeline_app(analyze_trace(str(TRACE)), ascii_mode=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("enter")  # a finding: its marker and detail
        await pilot.pause()
        text = screen_text(app)
        assert "#" in text and "GPU idle" in text  # the Gantt is there, in ASCII shades
        assert sorted({ch for ch in text if ord(ch) > 127}) == []
        await pilot.press("question_mark")  # its help (once test_keys.py's own app)
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and "next step" in screen_text(app)
        assert sorted({ch for ch in screen_text(app) if ord(ch) > 127}) == []
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)
