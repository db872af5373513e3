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


def unchanged_by_a_full_styling_pass(screen, scrollbars: bool = True) -> None:
    """A full pass of the stylesheet over the screen (what Textual's first resume did)
    changes no rule: every widget was styled as its classes say."""
    before = styles_of(screen, scrollbars)
    screen.update_node_styles(animate=False)
    assert styles_of(screen, scrollbars) == before
    assert len(before) > 50  # every widget was compared, not an empty screen


class Lines:
    """The explorer's lines and table, checked after a key against a full update of each:
    a new text and a layout pass for each line (as ``Static.update`` does), every row of
    the table drawn again from cells asked of the model again. Records which updates of the
    selected name asked for a layout pass."""

    def __init__(self, app, pilot) -> None:
        self.app, self.pilot, self.screen = app, pilot, app.explorer
        self.lines = {line.id: line for line in self.screen.query(TextLine)}
        self.table = self.screen.query_one(KernelTable)
        self.layouts: list[bool] = []
        name_line = self.lines["selected-name"]

        def update(content, *, layout=True):
            self.layouts.append(layout)
            Static.update(name_line, content, layout=layout)

        name_line.update = update

    async def as_a_full_update_shows(self, step: str) -> list:
        app, screen, lines = self.app, self.screen, self.lines
        shown = screen_cells(app)
        assert lines["selected-name"].shown_text == screen.selected["name"]
        width = app.size.width - 2  # the lines' padding
        assert lines["status"].shown_text == screen.model.status_line(width)
        assert lines["opened"].shown_text == screen.model.header(width)
        for line in lines.values():
            Static.update(line, literal(line.shown_text, line.ascii_mode), layout=True)
        self.table._window = (0, 0, 0, [])  # its cells asked of the model again
        self.table.refresh()  # every row drawn again, not only those the cursor left and reached
        await self.pilot.pause()
        assert screen_cells(app) == shown, step
        return shown

    async def after_each_of(self, keys: list[str]) -> list:
        shown: list = []
        for key in keys:
            await self.pilot.press(key)
            await self.pilot.pause()
            shown = await self.as_a_full_update_shows(key)
        return shown


# At 120x40 the sample's names take 1, 2 or 3 rows: these moves go 1-2-3-1-2 and back,
# `g` shows other names (single launches, then kernels grouped); the table shows 13 rows:
# `end` and `home` scroll it. It ends on single launches' last row (`end`).
KEYS = ["down"] * 5 + ["up"] * 2 + ["g", "down", "g", "end", "up", "home", "g", "end"]


async def test_at_120x40_styled_once_and_the_lines_and_table_show_what_a_full_update_shows():
    app = explorer_of([SAMPLE])
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert app.explorer.is_current
        unchanged_by_a_full_styling_pass(app.explorer)
        lines = Lines(app, pilot)
        shown = await lines.after_each_of(KEYS)
        assert set(lines.layouts) == {True, False}  # some names took other rows, some the same

        # At the table's end (179 launches, past the first pages of cells) a move asks the
        # model for no cells again: a page reaching past the last row missed the cache on
        # every line drawn.
        table, pages = lines.table, []
        page = table._page  # the model's table_page, as show_rows handed it over
        assert page is not None and table.cursor_row == 178
        table._page = lambda *asked: pages.append(asked) or page(*asked)
        await pilot.press("up", "down")
        await pilot.pause()
        assert table.cursor_row == 178
        assert screen_cells(app) == shown and pages == []


async def test_at_70x24_in_ascii_styled_once_packed_keys_and_one_row_names_ask_no_layout():
    # 70 columns: the footer's keys are packed (``KeysFooter`` builds them packed); under
    # 30 rows the selected name has one row (max-height 1), however many its name wraps to
    app = explorer_of([SAMPLE], ascii_mode=True)
    async with app.run_test(size=(70, 24)) as pilot:
        await loaded(pilot)
        screen = app.explorer
        unchanged_by_a_full_styling_pass(screen)
        footer = screen.query_one(KeysFooter)
        assert footer.compact
        await pilot.press("z")  # the plot focused: other keys, a footer built at this width
        await pilot.pause()
        for key in footer.query(FooterKey):  # as Footer's binding of ``compact`` leaves them
            assert key.compact == key.has_class("-compact") == footer.compact
        await pilot.press("z")
        lines = Lines(app, pilot)
        await lines.after_each_of(["down"] * 4 + ["up"])
        assert set(lines.layouts) == {False}
        await pilot.resize_terminal(70, 40)  # taller: the name's max-height is 3 rows
        await pilot.pause()
        await lines.after_each_of(["down", "up"])
        await pilot.press("d")  # the details open: the body's class (styled: narrow)
        await pilot.pause()
        unchanged_by_a_full_styling_pass(screen, scrollbars=False)  # the details' own: made just now
        assert not screen.query_one("#main").display  # narrow: the details cover the table
        await pilot.resize_terminal(120, 40)  # wide with the details open: beside the table
        await pilot.pause()
        assert screen.query_one("#main").display
        await pilot.press("d")  # closed on a wide screen: the class set, not styled
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        unchanged_by_a_full_styling_pass(screen, scrollbars=False)
        await pilot.resize_terminal(70, 40)  # narrow again, the details still open
        await pilot.pause()
        assert not screen.query_one("#main").display
