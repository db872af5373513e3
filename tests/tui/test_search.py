"""`/` finds a kernel by name as less does: the cursor jumps to it, nothing is filtered
away; `n` and `N` go to the next and previous match, wrapping around."""

from __future__ import annotations

from rooftui.views.tui.widgets.kernel_table import KernelTable
from tests.tui.conftest import loaded


def names(app) -> list[str]:
    return list(app.explorer.rows["name"])


async def test_slash_jumps_to_the_first_match_without_filtering(sample_app):
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        everything = names(app)
        await pilot.press("slash", *"BATCHNORM", "enter")
        table = app.explorer.query_one(KernelTable)
        matches = [i for i, name in enumerate(everything) if "batchnorm" in name.lower()]
        assert len(matches) == 3  # batchnorm_fwtr (9 launches) and the two batchnorm_bwtr
        assert table.cursor_row == matches[0] and app.explorer.selected["name"] == everything[matches[0]]
        assert names(app) == everything and isinstance(app.focused, KernelTable)
        assert not app.explorer.query_one("#search").display
        await pilot.press("n")
        assert table.cursor_row == matches[1]
        await pilot.press("n", "n")  # past the last match: back to the first
        assert table.cursor_row == matches[0]
        await pilot.press("N")  # and backwards, wrapping to the last
        assert table.cursor_row == matches[2]
        assert app.explorer.state.spec.is_empty


async def test_the_find_starts_from_the_cursor_and_escape_returns_there(sample_app):
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        everything = names(app)
        table = app.explorer.query_one(KernelTable)
        await pilot.press("end")
        last = table.cursor_row
        await pilot.press("slash", *"sm90_xmma")
        first = next(i for i, name in enumerate(everything) if name.startswith("sm90_xmma"))
        assert table.cursor_row == first  # from the last row, wrapped to the first match
        await pilot.press("escape")
        assert table.cursor_row == last and isinstance(app.focused, KernelTable)


async def test_a_find_that_matches_nothing_says_so_and_stays(sample_app):
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("down", "slash", *"no_such_kernel", "enter")
        assert app.explorer.query_one(KernelTable).cursor_row == 1
        assert any("no kernel shown matches 'no_such_kernel'" in n.message for n in app._notifications)


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
