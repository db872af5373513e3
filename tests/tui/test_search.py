"""Text typed or pasted into the explorer's fields. The find (`/`, `n`, `N`) is checked
on the model in test_explorer_model.py and its keys in test_explorer.py."""

from __future__ import annotations

from tests.tui.conftest import loaded


def names(app) -> list[str]:
    return list(app.explorer.rows["name"])


async def test_a_tab_in_a_pasted_burst_moves_to_the_next_filter_field(sample_app):
    from textual import events

    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("f")
        app.focused.post_message(events.Paste("batchnorm\t"))
        await pilot.pause()
        assert app.explorer.query_one("#filter-name").value == "batchnorm"
        assert app.focused.id == "filter-regex"  # the Tab was not lost
        assert len(names(app)) == 3
