"""Text from files never reaches Textual as markup or raw control characters: a kernel
name holding `[/x]` (a closing tag that matches nothing: parsed as markup it raises),
a file name holding `[bold]` (parsed, it would vanish) or an escape sequence shows as
written, escaped."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import loaded, screen_text, type_text

REPO = Path(__file__).resolve().parents[2]
KNOWN_ANSWER = REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv"
NAME = "daxpy[/x][bold]\x1b[31m"


def recording_notifications(app) -> list[tuple[str, bool, str]]:
    """(message, markup, severity) of every notification ``app`` shows from now on,
    kept after it times out."""
    shown: list[tuple[str, bool, str]] = []
    original = app.notify

    def notify(message, *args, **kwargs):
        shown.append((str(message), kwargs.get("markup", True), kwargs.get("severity", "information")))
        return original(message, *args, **kwargs)

    app.notify = notify
    return shown


def hostile_report(folder: Path) -> Path:
    """The known-answer report with its daxpy kernel renamed ``NAME``, in a file whose
    name holds markup too."""
    path = folder / "rep[bold]ort.raw-base.csv"
    path.write_text(KNOWN_ANSWER.read_text().replace('"daxpy(long', f'"{NAME}(long'))
    return path


async def test_names_with_markup_and_escapes_are_shown_copied_found_and_saved_as_written(
    tmp_path, monkeypatch
):
    # one app: the hostile report, with a trace that cannot be read
    import threading

    from textual.widgets import Input, Static

    import rooftui.analysis
    from rooftui.views.tui.app import make_app
    from rooftui.views.tui.widgets.kernel_table import KernelTable

    monkeypatch.chdir(tmp_path)
    bad_trace = tmp_path / "tra[bold]ce.json"
    bad_trace.write_text("{not json")
    # The load waits until the progress line was checked: the loading pane is removed once
    # the reports are loaded, which may otherwise come first.
    release = threading.Event()
    read = rooftui.analysis.load_run

    def load_when_released(*args, **kwargs):
        release.wait(10)
        return read(*args, **kwargs)

    monkeypatch.setattr(rooftui.analysis, "load_run", load_when_released)
    app = make_app([hostile_report(tmp_path)], trace=bad_trace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.explorer.show_progress(1, 2, "rep[/x]ort\x1b]0;title\x07.csv")
        progress = str(app.explorer.query_one("#loading-text", Static).render())
        assert progress == "Loading reports… rep[/x]ort\\e]0;title\\x07.csv"
        release.set()
        await loaded(pilot)
        notified = recording_notifications(app)
        table = app.explorer.query_one(KernelTable)
        names = list(app.explorer.rows["name"])
        table.cursor_row = next(i for i, name in enumerate(names) if name.startswith("daxpy["))
        await pilot.press("y")  # "sent to the clipboard by OSC 52 ...: daxpy[/x]..."
        assert app.clipboard.startswith(NAME)
        await pilot.press("slash")
        await type_text(pilot, "[/x]zz")  # (typed key by key: test_snapshots.py, test_tmux.py)
        await pilot.press("enter")  # "no kernel shown matches '[/x]zz'"
        await pilot.press("c")
        app.screen.query_one(Input).value = str(tmp_path / "out[bold].csv")
        await pilot.press("enter")  # "saved 14 rows to .../out[bold].csv"
        await pilot.pause()
        messages = [message for message, _, _ in notified]
        assert any("OSC 52" in m and m.endswith(": daxpy[/x][bold]\\e[31m") for m in messages), messages
        assert "no kernel shown matches '[/x]zz'" in messages
        assert any(m.startswith("saved ") and m.endswith("out[bold].csv") for m in messages)
        assert all(markup is False for _, markup, _ in notified)
        text = screen_text(app)
        assert "rep[bold]ort.raw-base.csv" in text  # the header
        assert "daxpy[/x][bold]\\e[31m" in text  # the selected name under the table
        assert "\x1b" not in text
        await pilot.press("t")  # the trace's error names the file as written
        await app.workers.wait_for_complete()
        await pilot.pause()
        errors = [(message, markup) for message, markup, severity in notified if severity == "error"]
        assert errors and "tra[bold]ce.json" in errors[0][0] and errors[0][1] is False
        assert type(app.screen).__name__ == "ExplorerScreen"  # the explorer stays
    assert (tmp_path / "out[bold].csv").exists()
