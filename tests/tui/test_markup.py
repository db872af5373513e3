"""Text from files never reaches Textual as markup or raw control characters: a kernel
name holding `[/x]` (a closing tag that matches nothing: parsed as markup it raises),
a file name holding `[bold]` (parsed, it would vanish) or an escape sequence shows as
written, escaped."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import loaded, screen_text

REPO = Path(__file__).resolve().parents[2]
KNOWN_ANSWER = REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv"
NAME = "daxpy[/x][bold]\x1b[31m"


def hostile_report(folder: Path) -> Path:
    """The known-answer report with its daxpy kernel renamed ``NAME``, in a file whose
    name holds markup too."""
    path = folder / "rep[bold]ort.raw-base.csv"
    path.write_text(KNOWN_ANSWER.read_text().replace('"daxpy(long', f'"{NAME}(long'))
    return path


async def test_a_name_with_markup_and_escapes_is_copied_found_and_saved_as_written(tmp_path, monkeypatch):
    from rooftui.views.tui.app import make_app
    from rooftui.views.tui.widgets.kernel_table import KernelTable

    monkeypatch.chdir(tmp_path)
    app = make_app([hostile_report(tmp_path)])
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        table = app.explorer.query_one(KernelTable)
        names = list(app.explorer.rows["name"])
        table.cursor_row = next(i for i, name in enumerate(names) if name.startswith("daxpy["))
        await pilot.press("y")  # "copied daxpy[/x]..."
        copied = [n.message for n in app._notifications]
        assert app.clipboard.startswith(NAME)
        await pilot.press("slash", *"[/x]zz", "enter")  # "no kernel shown matches '[/x]zz'"
        # Read each step's notifications at once: a notification expires after a few
        # seconds, which a busy machine can take between two steps.
        searched = [n.message for n in app._notifications]
        await pilot.press("c")
        from textual.widgets import Input

        app.screen.query_one(Input).value = str(tmp_path / "out[bold].csv")
        await pilot.press("enter")  # "saved N rows to .../out[bold].csv"
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert "copied daxpy[/x][bold]\\e[31m" in copied, copied
        assert "no kernel shown matches '[/x]zz'" in searched, searched
        assert any(m.startswith("saved ") and m.endswith("out[bold].csv") for m in messages)
        assert all(n.markup is False for n in app._notifications)
        text = screen_text(app)
        assert "rep[bold]ort.raw-base.csv" in text  # the header
        assert "daxpy[/x][bold]\\e[31m" in text  # the selected name under the table
        assert "\x1b" not in text
    assert (tmp_path / "out[bold].csv").exists()


async def test_loading_progress_and_a_trace_error_show_names_as_written(tmp_path, sample_app):
    from textual.widgets import Static

    bad_trace = tmp_path / "tra[bold]ce.json"
    bad_trace.write_text("{not json")
    app = sample_app(trace=bad_trace)
    async with app.run_test(size=(80, 24)) as pilot:
        app.explorer.show_progress(1, 2, "rep[/x]ort\x1b]0;title\x07.csv")
        progress = str(app.explorer.query_one("#loading-text", Static).render())
        assert progress == "Loading reports… rep[/x]ort\\e]0;title\\x07.csv"
        await loaded(pilot)
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "tra[bold]ce.json" in errors[0].message and errors[0].markup is False
