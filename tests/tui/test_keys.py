"""One set of keys on every screen: `?` lists the keys of the screen you are on (and
only keys that work there), `Esc` goes back and never quits, `q` quits from the first
screen. (The two small dialogs, compute roofs and export, print their keys in them.)
The footers keep every key in view at 80 and 120 columns."""

from __future__ import annotations

from functools import partial

import pytest

from rooftui.views.tui.screens.explorer import ExplorerScreen
from rooftui.views.tui.screens.help import HelpScreen
from tests.tui.conftest import TRACE, loaded, open_the_timeline, run_in_turn, screen_text, wait_until


def table_three_is_shown(app) -> None:
    """``s``'s screen on the sample: Table III (overall, 34 of 179 launches zero-AI, 6.1%
    of the time), the time per phase and per pipeline."""
    text = screen_text(app)
    assert "Table III" in text and "Time per phase" in text and "per pipeline" in text
    assert any(
        "all" in line and "179" in line and "34" in line and "6.1%" in line for line in text.splitlines()
    )
    assert "Tensor FP16" in text


def help_lists_every_explorer_key_that_works(app) -> None:
    """The explorer's help shows every binding of the explorer and its table that works:
    with a trace `t`, with one GPU no `v` (without a trace, no `t`: test_explorer.py)."""
    from rooftui.views.tui.widgets.kernel_table import KernelTable

    text = screen_text(app)
    for owner in (ExplorerScreen, KernelTable):
        for binding in owner.BINDINGS:
            described = (binding.tooltip or binding.description) in text
            assert described == (binding.action != "next_device"), binding
    assert "." in keys_of(app, "next point on the roofline (left to right)")  # not "full_stop"
    assert "," in keys_of(app, "previous point on the roofline")


def keys_of(app, what: str) -> str:
    """The keys the help screen lists for ``what``."""
    return next(keys for _, keys, said in app.screen.rows if said == what)


def help_lists_the_keys_of(app, where: str) -> None:
    """The help screen on top lists the keys of ``where`` (and the keys of anywhere)."""
    assert isinstance(app.screen, HelpScreen), where
    rows = app.screen.rows
    assert ("anywhere", "? f1", "the keys of this screen") in rows
    assert {row[0] for row in rows} - {"anywhere", "kernel table", "filter bar"} == {where}


async def question_mark_on_the_summary_shows_its_keys_and_escape_goes_back(app, pilot) -> None:
    # at 120x60 Table III is in view; the explorer's help: the footer check, the
    # timeline's: the trace check (each screen opened once for its keys)
    await pilot.press("s")
    assert type(app.screen).__name__ == "SummaryScreen"
    table_three_is_shown(app)
    await pilot.press("question_mark")
    help_lists_the_keys_of(app, "summary")
    await pilot.press("escape")
    assert type(app.screen).__name__ == "SummaryScreen"
    await pilot.press("escape")
    assert isinstance(app.screen, ExplorerScreen)
    assert app.return_code is None  # escape never quits


async def q_on_a_screen_opened_from_the_explorer_goes_back(app, pilot) -> None:
    assert await open_the_timeline(pilot) == []  # analysed already: no toast this time
    assert type(app.screen).__name__ == "TimelineScreen"
    await pilot.press("q")
    assert isinstance(app.screen, ExplorerScreen) and app.return_code is None


async def with_a_trace_t_opens_the_timeline_with_its_keys_and_escape_goes_back(app, pilot) -> None:
    # (with a trace the explorer's help lists t: the footer check at 120x60)
    from rooftui.views.tui.screens.timeline import TimelineScreen

    assert await open_the_timeline(pilot) == ["analysing naive.json.gz…"]  # the first time only
    assert isinstance(app.screen, TimelineScreen)
    await pilot.press("question_mark")
    help_lists_the_keys_of(app, "timeline")
    await pilot.press("escape")
    assert isinstance(app.screen, TimelineScreen)
    await pilot.press("enter")  # a finding: its detail (in ASCII: test_dialogs_ascii.py)
    await pilot.pause()
    assert "GPU idle" in screen_text(app)
    await pilot.press("escape")
    assert isinstance(app.screen, ExplorerScreen) and app.return_code is None


FOOTER_KEYS = ["/ find", "f filter", "g group", "d detail", "s summary", "e svg", "c csv", "q quit", "? help"]


async def every_footer_key_is_in_view_and_helps_footer_offers_no_help(app, pilot, whole_help=False) -> None:
    """Footers fit: every key the explorer's footer offers stays in view, ``t`` with a
    trace (the footer packs its keys closer when it is drawn for a size, at the start as
    after a resize); the help screen's footer offers no "? help" (``?`` closes it there)
    and the help names keys as they are typed. With ``whole_help`` (at 120x60, where it
    is all in view): the help lists the explorer's every key that works, ``t`` too."""
    width = app.size.width
    footer = screen_text(app).splitlines()[-1]
    assert len(footer) <= width
    for key in [*FOOTER_KEYS, "t timeline"]:
        assert key in footer, (width, key, footer)
    await pilot.press("question_mark")
    await pilot.pause()
    if whole_help:
        help_lists_the_keys_of(app, "explorer")
        help_lists_every_explorer_key_that_works(app)
        assert ("explorer", "t", "timeline of the --trace profile") in app.screen.rows
    text = screen_text(app)
    footer = text.splitlines()[-1]
    assert "esc close" in footer and "help" not in footer
    for name in ("full_stop", "comma", "question_mark", "slash", "square_bracket"):
        assert name not in text
    await pilot.press("question_mark")  # closes it
    await pilot.pause()
    assert isinstance(app.screen, ExplorerScreen)


async def test_help_on_the_standalone_compare_screen(sample_run):
    from rooftui.analysis.compare import compare_runs
    from rooftui.views.tui.screens.compare import CompareApp, CompareScreen

    app = CompareApp(compare_runs(sample_run, sample_run, "A", "B"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "rooftui diff" in text and "more arrows" in text and "zoom chart" in text
        await pilot.press("escape")
        assert isinstance(app.screen, CompareScreen)
        await pilot.press("escape")  # the first screen: nothing to go back to
        assert isinstance(app.screen, CompareScreen) and app.is_running


async def an_export_never_overwrites_without_asking(app, pilot, folder) -> None:
    # the proposed names are in the working directory: the test runs in ``folder``
    from textual.widgets import Input

    from rooftui.views.tui.screens.export import ExportScreen

    for key, default in [("e", "rooftui-view.svg"), ("c", "rooftui-kernels.csv")]:
        (folder / default).write_text("mine")
        await pilot.press(key)
        if key == "e":  # (in ASCII: test_dialogs_ascii.py)
            assert "Save SVG of this view to:" in screen_text(app)
        field = app.screen.query_one(Input)
        assert field.value == default.replace(".", "-1.")  # a name that is free is proposed
        field.value = default
        await pilot.press("enter")
        assert isinstance(app.screen, ExportScreen), key  # asked, not written
        error = str(app.screen.query_one("#export-error").render())
        assert "exists: enter again to replace it" in error
        assert (folder / default).read_text() == "mine"
        await pilot.press("escape")
        assert isinstance(app.screen, ExplorerScreen)
    assert (folder / "rooftui-view.svg").read_text() == "mine"
    assert (folder / "rooftui-kernels.csv").read_text() == "mine"


async def enter_twice_on_an_existing_name_replaces_it(app, pilot, folder) -> None:
    import pandas as pd
    from textual.widgets import Input

    target = folder / "kernels.csv"
    target.write_text("old")
    await pilot.press("c")
    app.screen.query_one(Input).value = str(target)
    await pilot.press("enter", "enter")
    await pilot.pause()
    assert len(pd.read_csv(target)) == 73  # the 73 kernels replaced "old"


async def y_copies_the_selected_kernels_full_name_with_osc_52(app, pilot) -> None:
    import base64

    for tmux in (False, True):  # inside tmux, the sequence again, wrapped for tmux
        with pytest.MonkeyPatch.context() as patch:
            if tmux:
                patch.setenv("TMUX", "/tmp/tmux-1000/default,1,0")
            else:
                patch.delenv("TMUX", raising=False)
            written: list[str] = []
            patch.setattr(app._driver, "write", written.append)
            await pilot.press("down", "y")
            name = app.explorer.selected["name"]
            await pilot.press("up")
        assert app.clipboard == name and name.startswith("batchnorm_fwtr_nhwc_semiPersist<")
        payload = base64.b64encode(name.encode()).decode()
        osc = f"\x1b]52;c;{payload}\a"
        sequences = [text for text in written if "52;c;" in text]
        expected = [osc] + ([f"\x1bPtmux;\x1b\x1b]52;c;{payload}\a\x1b\\"] if tmux else [])
        assert sequences == expected, tmux


DIALOG_KEYS = [
    (
        "p",
        "question_mark",
        {
            ("compute roofs", "up down"),
            ("compute roofs", "space"),
            ("compute roofs", "enter"),
            ("compute roofs", "esc q"),
            ("compute roofs", "? f1"),
        },
    ),
    # the export dialog's file name field types q and ?: F1 is help there
    (
        "c",
        "f1",
        {("export", "enter"), ("export", "esc"), ("export", "f1"), ("export", "left right home end")},
    ),
]


async def help_on_a_dialog_lists_the_keys_that_work_in_it(app, pilot) -> None:
    for open_key, help_key, expected in DIALOG_KEYS:  # each dialog closed before the next
        await pilot.press(open_key)
        dialog = app.screen
        await pilot.press(help_key)
        assert isinstance(app.screen, HelpScreen), open_key
        assert {(where, keys) for where, keys, _ in app.screen.rows} == expected
        await pilot.press("escape")
        assert app.screen is dialog  # back to the dialog, still open
        await pilot.press("escape")
        assert isinstance(app.screen, ExplorerScreen)


async def q_on_the_compute_roofs_dialog_closes_it_and_changes_nothing(app, pilot) -> None:
    from rooftui.views.tui.ascii import box

    hidden = set(app.explorer.state.hidden_pipelines)
    await pilot.press("p", "space")  # the first roof, FP64, unticked: its box says so
    await pilot.pause()
    text = screen_text(app)  # (in ASCII: test_dialogs_ascii.py)
    assert f"{box(False, False)} FP64" in text and f"{box(True, False)} FP32" in text
    await pilot.press("q")
    assert isinstance(app.screen, ExplorerScreen) and app.return_code is None
    assert app.explorer.state.hidden_pipelines == hidden


async def test_help_escape_q_dialogs_copying_and_exports_come_back_where_they_started(
    sample_app, tmp_path, monkeypatch
):
    # one app, with a trace (run_in_turn: each check must leave the explorer as it found
    # it): the footers and the screens opened from the explorer at 120x60, then the
    # footers (after a resize) and the dialogs at 80x24
    monkeypatch.chdir(tmp_path)
    app = sample_app(trace=TRACE)
    async with app.run_test(size=(120, 60)) as pilot:
        await loaded(pilot)
        await run_in_turn(
            app,
            pilot,
            [
                # as it starts
                partial(every_footer_key_is_in_view_and_helps_footer_offers_no_help, whole_help=True),
                with_a_trace_t_opens_the_timeline_with_its_keys_and_escape_goes_back,
                question_mark_on_the_summary_shows_its_keys_and_escape_goes_back,
                q_on_a_screen_opened_from_the_explorer_goes_back,
            ],
        )
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await run_in_turn(
            app,
            pilot,
            [
                every_footer_key_is_in_view_and_helps_footer_offers_no_help,  # resized
                help_on_a_dialog_lists_the_keys_that_work_in_it,
                q_on_the_compute_roofs_dialog_closes_it_and_changes_nothing,
                partial(an_export_never_overwrites_without_asking, folder=tmp_path),
                partial(enter_twice_on_an_existing_name_replaces_it, folder=tmp_path),
                question_mark_in_the_export_field_is_part_of_the_name,
                y_copies_the_selected_kernels_full_name_with_osc_52,
                partial(the_explorers_csv_is_summarys_csv_of_the_same_launches, folder=tmp_path),
            ],
        )
        # last, as it ends the app: escape on the explorer stays, q quits
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, ExplorerScreen) and app.return_code is None
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def question_mark_in_the_export_field_is_part_of_the_name(app, pilot) -> None:
    from textual.widgets import Input

    await pilot.press("c")
    field = app.screen.query_one(Input)
    field.value = ""
    await pilot.press("a", "question_mark", "q")
    assert field.value == "a?q" and not isinstance(app.screen, HelpScreen)
    await pilot.press("escape")


async def the_explorers_csv_is_summarys_csv_of_the_same_launches(app, pilot, folder) -> None:
    import io

    import pandas as pd
    from click.testing import CliRunner
    from textual.widgets import Input

    from rooftui.cli import cli
    from tests.tui.conftest import SAMPLE

    target = folder / "launches.csv"
    await pilot.press("g", "c")  # single invocations, as summary lists them
    app.screen.query_one(Input).value = str(target)
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press("g")
    result = CliRunner().invoke(cli, ["summary", "--format", "csv", str(SAMPLE)])
    assert result.exit_code == 0
    summary = pd.read_csv(io.StringIO(result.stdout))
    explorer = pd.read_csv(target)
    assert list(explorer.columns) == list(summary.columns)  # one layout, one column order
    by_id = explorer.sort_values("id").reset_index(drop=True)
    pd.testing.assert_frame_equal(by_id, summary.sort_values("id").reset_index(drop=True))


async def test_the_footer_is_built_again_only_when_the_keys_it_shows_change():
    """``KeysFooter`` (every screen's footer) recomposes when a key it shows appears, goes
    or changes state, and not on a focus change that leaves its keys as they were (Textual's
    ``Footer`` recomposes on every one)."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.widgets import Input

    from rooftui.views.tui.widgets.footer import KeysFooter

    class TwoFields(App[None]):
        BINDINGS = [Binding("f2", "flip", "flip"), Binding("f3", "other", "other")]
        ENABLE_COMMAND_PALETTE = False
        other_works = True

        def compose(self) -> ComposeResult:
            yield Input(id="first")
            yield Input(id="second")
            yield KeysFooter()

        def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
            return self.other_works if action == "other" else True

        def action_flip(self) -> None:
            self.other_works = not self.other_works
            self.refresh_bindings()

    def keys_shown(app) -> list[str]:
        return [key.description for key in app.query("FooterKey")]

    app = TwoFields()
    async with app.run_test(size=(60, 5)) as pilot:
        # the footer is built after the first refresh: a loaded machine may take more pauses
        await wait_until(pilot, lambda: keys_shown(app) == ["flip", "other"], "the footer shows both keys")
        footer_keys = list(app.query("FooterKey"))
        app.query_one("#second", Input).focus()
        await pilot.pause()
        await pilot.pause()
        assert list(app.query("FooterKey")) == footer_keys  # the same widgets: not built again
        await pilot.press("f2")  # "other" no longer works: built again without it
        await wait_until(pilot, lambda: keys_shown(app) == ["flip"], "the footer drops 'other'")
        await pilot.press("f2")
        await wait_until(pilot, lambda: keys_shown(app) == ["flip", "other"], "'other' shown again")
