"""What the explorer skips changes nothing on screen.

- It is styled once as it opens: Textual's second pass over every widget when a screen is
  first shown is skipped (``ExplorerScreen.on_screen_resume``). After the start, a full
  pass of the stylesheet (what Textual's resume does) leaves every widget's rules as they were.
- Its header, status line and selected name (``TextLine``) are drawn again only when their
  text changes, and laid out again only when the rows they take change; the kernel table
  draws again only the rows the cursor left and reached, unless it scrolled. After each
  key, a full update of each (a new text and a layout pass, as ``Static.update`` does; the
  whole table) leaves the screen as it was.
"""

from __future__ import annotations

import pytest
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from rooftui.views.tui.format import literal
from rooftui.views.tui.widgets.footer import KeysFooter
from rooftui.views.tui.widgets.kernel_table import KernelTable
from rooftui.views.tui.widgets.text_line import TextLine
from tests.tui.conftest import SAMPLE, explorer_of, loaded


def screen_cells(app) -> list[list[tuple]]:
    """What the terminal shows: each cell's character and style, row by row."""
    return [
        [(char, segment.style) for segment in strip for char in segment.text]
        for strip in app.screen._compositor.render_strips()
    ]


def styles_of(screen, scrollbars: bool = True) -> dict:
    """Every node's rules from the stylesheet (not its inline styles), those of its
    component classes (the table's cursor, header, ...) and of its scrollbars (Textual
    leaves a scrollbar made after its widget was styled unstyled, drawn the same)."""
    nodes = []
    for node in screen.walk_children(with_self=True):
        nodes.append(node)
        if scrollbars:
            nodes += [bar for bar in (node._vertical_scrollbar, node._horizontal_scrollbar) if bar]
            if node._scrollbar_corner is not None:
                nodes.append(node._scrollbar_corner)
    return {
        node: (
            node.styles.base.get_rules(),
            {name: styles.base.get_rules() for name, styles in node._component_styles.items()},
            (node._has_hover_style, node._has_focus_within, node._has_order_style),
        )
        for node in nodes
    }


# 70 columns: the footer's keys are packed (``KeysFooter`` builds them packed)
@pytest.mark.parametrize(("size", "ascii_mode"), [((120, 40), False), ((70, 24), True)])
async def test_a_second_styling_pass_at_the_start_would_change_no_style(size, ascii_mode):
    app = explorer_of([SAMPLE], ascii_mode=ascii_mode)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        screen = app.explorer
        assert screen.is_current
        as_started = styles_of(screen)
        screen.update_node_styles(animate=False)  # what Textual's first resume did
        assert styles_of(screen) == as_started
        assert len(as_started) > 60  # every widget was compared, not an empty screen
        footer = screen.query_one(KeysFooter)
        assert footer.compact == (size[0] < 80)
        await pilot.press("z")  # the plot focused: other keys, a footer built at this width
        await pilot.pause()
        await pilot.press("z", "d")  # back; the details open (the body's class, unstyled if wide)
        await pilot.pause()
        opened = styles_of(screen, scrollbars=False)  # the details' scrollbar: made just now
        screen.update_node_styles(animate=False)
        assert styles_of(screen, scrollbars=False) == opened
        await pilot.resize_terminal(100, 24)  # narrow with the details open: they cover the table
        await pilot.pause()
        assert not screen.query_one("#main").display
        await pilot.resize_terminal(*size)
        await pilot.press("d")
        await pilot.pause()
        assert screen.query_one("#main").display
        for key in footer.query(FooterKey):  # as Footer's binding of ``compact`` leaves them
            assert key.compact == key.has_class("-compact") == footer.compact


# At 120x40 the sample's names take 1, 2 or 3 rows: these moves go 1-2-3-1-2 and back,
# `g` shows other names (single launches, then kernels grouped); the table shows 13 rows:
# `end` and `home` scroll it. It ends on single launches' last row (`end`).
KEYS = ["down"] * 5 + ["up"] * 2 + ["g", "down", "g", "end", "up", "home", "g", "end"]


# 120x40: names of 1, 2 and 3 rows; 80x24: one row each (max-height 1), no layout pass,
# then 40 rows: the name's rows as a full update gives them
@pytest.mark.parametrize(("size", "layouts_asked"), [((120, 40), {True, False}), ((80, 24), {False})])
async def test_the_lines_show_after_each_key_what_a_full_update_shows(size, layouts_asked):
    app = explorer_of([SAMPLE])
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        screen = app.explorer
        lines = {line.id: line for line in screen.query(TextLine)}
        name_line, layouts = lines["selected-name"], []
        table = screen.query_one(KernelTable)

        def update(content, *, layout=True):  # records which of its updates asked for a layout
            layouts.append(layout)
            Static.update(name_line, content, layout=layout)

        name_line.update = update

        async def as_a_full_update_shows(step: str) -> list:
            shown = screen_cells(app)
            name = screen.selected["name"]
            assert lines["selected-name"].shown_text == name
            width = app.size.width - 2  # the lines' padding
            assert lines["status"].shown_text == screen.model.status_line(width)
            assert lines["opened"].shown_text == screen.model.header(width)
            for line in lines.values():
                Static.update(line, literal(line.shown_text), layout=True)
            table._window = (0, 0, 0, [])  # its cells asked of the model again
            table.refresh()  # every row drawn again, not only those the cursor left and reached
            await pilot.pause()
            assert screen_cells(app) == shown, step
            return shown

        for key in KEYS:
            await pilot.press(key)
            await pilot.pause()
            shown = await as_a_full_update_shows(key)
        assert set(layouts) == layouts_asked  # some names took other rows, some the same

        # At the table's end (179 launches, past the first pages of cells) a move asks the
        # model for no cells again: a page reaching past the last row missed the cache on
        # every line drawn.
        pages: list[tuple] = []
        page = table._page  # the model's table_page, as show_rows handed it over
        assert page is not None and table.cursor_row == 178
        table._page = lambda *asked: pages.append(asked) or page(*asked)
        await pilot.press("up", "down")
        await pilot.pause()
        assert table.cursor_row == 178
        assert screen_cells(app) == shown and pages == []
        if size == (80, 24):  # taller: the name's max-height is 3 rows
            await pilot.resize_terminal(80, 40)
            await pilot.pause()
            await pilot.press("up")
            await pilot.pause()
            await as_a_full_update_shows("80x40")
