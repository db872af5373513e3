"""The explorer's roofline as data — no Textual: what is plotted, on which GPU, which
point the keys stepped to, the picture laid out for a size, and the legend under it.

``RooflineView`` holds the roofline's state; ``RooflineCanvas`` and ``RooflinePane``
(``widgets/roofline.py``) only colour its cells and size the legend it chose, so the
picture and the legend can be checked for any size without starting an app.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
from rich.console import Console
from rich.text import Text

from rooftui.analysis.instruction_roofline import InstructionCeilings
from rooftui.model.ceilings import CeilingSet
from rooftui.views.text import printable
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.instruction_figure import (
    AXIS_TITLES,
    build_instruction_figure,
    selected_instruction_points,
)
from rooftui.views.tui.kept import Kept
from rooftui.views.tui.roofline_layout import (
    Layers,
    Layout,
    PointCell,
    nearest_in_order,
    plot_cells,
)
from rooftui.views.tui.roofline_legend import (
    LEGEND_ROWS,
    Said,
    legend,
    legend_width,
    off_plot_tags,
    unlabelled_roofs,
)
from rooftui.views.tui.roofline_model import (
    EXPLORER_HEADROOM,
    Roof,
    RooflineFigure,
    build_figure,
    device_labels,
    drawn_levels,
    selected_points,
)

LEGEND_ROWS_KEPT = 32  # legend_rows answers remembered
DRAWN_KEPT = 12  # figures laid out without the selection, remembered
# Measures how the legend's Rich text wraps, as the widget showing it wraps it.
_CONSOLE = Console(file=io.StringIO(), color_system=None, legacy_windows=False)


@dataclass(frozen=True)
class RooflineInputs:
    """What the explorer asks the roofline to plot."""

    frame: pd.DataFrame  # the plotted rows (``ViewState.plot_rows``), labelled by table position
    ceilings: CeilingSet
    levels: tuple[str, ...]
    pipelines: tuple[str, ...]
    selected: pd.Series | None = None
    # The instruction roofline's roofs per device (key i); None: the FLOP roofline.
    instruction_roofs: dict[str, InstructionCeilings] | None = None
    tags: dict[Any, str] | None = None  # row label -> tag (``ViewState.tags``); None: the heaviest drawn


class Same:
    """A key part naming an object by identity (a frame is not hashable), holding it so
    that its id is not given to another while the key is kept."""

    __slots__ = ("what",)

    def __init__(self, what: object) -> None:
        self.what = what

    def __hash__(self) -> int:
        return id(self.what)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.what is self.what


@dataclass(frozen=True)
class _Drawn:
    """The roofline of one ``RooflineView.content()`` at one size, without a selection:
    the figure, its layers, and what the selection is drawn from."""

    inputs: RooflineInputs  # held with the key that names its frame by identity
    ceilings_by_device: dict[str, CeilingSet]  # likewise
    shown: RooflineInputs  # the shown GPU's rows and ceilings (``_figure_inputs``)
    figure: RooflineFigure
    layers: Layers

    def selected_points(self, selected: pd.Series | None) -> list[tuple[str, float, float]]:
        """``selected``'s points on the figure, as its builder places them."""
        if selected is None:
            return []
        if self.shown.instruction_roofs is not None:
            return selected_instruction_points(selected, self.shown.levels)
        levels = drawn_levels(self.shown.frame, self.shown.levels)
        return selected_points(selected, levels, self.figure.x_range[1], self.figure.y_range[0])


@dataclass
class RooflinePicture:
    """The roofline pane at one size: the plot's figure and cells, and the legend."""

    figure: RooflineFigure
    layout: Layout
    legend: Text
    legend_rows: int
    overflow: list[Said]  # what must be said but found no room: the status line says it

    @property
    def plot_rows(self) -> list[str]:
        return self.layout.text_rows()


class RooflineView:
    """The roofline's state: its inputs, the GPU shown (a run may hold several), the
    point stepped to with ``.``/``,``, and the picture last laid out."""

    def __init__(self, *, ascii_mode: bool = False) -> None:
        self.ascii_mode = ascii_mode
        self.inputs: RooflineInputs | None = None
        self.shown = 0  # calls to show(): a new count means new inputs
        self.ceilings_by_device: dict[str, CeilingSet] = {}
        self.device: str | None = None  # the GPU shown, when the run has several
        self.cursor: tuple[str, Any] | None = None  # (level, kernel) stepped to
        self.figure: RooflineFigure | None = None  # as last laid out (``draw``)
        self.layout: Layout | None = None
        self._followed: Any = None  # the selected kernel whose GPU was last shown
        # rows chosen per (size, content, device, grouped): a pane whose height moves by the
        # selected name's second line, or levels toggled and back, asks again
        self._legend_rows: Kept[int] = Kept(LEGEND_ROWS_KEPT)
        # laid out without the selection, per (content, size): the sizes a legend's rows
        # are tried at, and the pane's heights as the selected name takes one or two rows
        self._drawn: Kept[_Drawn] = Kept(DRAWN_KEPT)
        self._last: _Drawn | None = None  # what ``figure`` and ``layout`` were drawn from
        self._legends: Kept[tuple[Text, list[Said]]] = Kept(LEGEND_ROWS_KEPT)

    @property
    def devices(self) -> list[str]:
        return list(self.ceilings_by_device)

    @property
    def tags(self) -> dict[Any, str]:
        """Row label -> tag of the heaviest kernels (empty before the first draw)."""
        return {} if self.figure is None else dict(self.figure.tags)

    @property
    def drawn_tags(self) -> dict[Any, str]:
        """Row label -> tag, of the tags the plot found room to draw."""
        if self.layout is None:
            return {}
        return {label.kernel: label.text for label in self.layout.labels if label.series == "tag"}

    @property
    def off_plot(self) -> list[Said]:
        """The tags of shown kernels the plot does not show beside a point: on another
        GPU, at a level switched off, or with no room left near their points."""
        if self._last is None:
            return []
        return off_plot_tags(self._last.inputs, self._last.shown, self.layout)  # all of the last draw

    @property
    def unlabelled(self) -> list[Roof]:
        if self.figure is None or self.layout is None:
            return []
        return unlabelled_roofs(self.figure, self.layout)

    def show(self, inputs: RooflineInputs, ceilings_by_device: dict[str, CeilingSet] | None = None) -> None:
        """Plot ``inputs`` from now on. With ``ceilings_by_device`` holding several GPUs
        only the shown device's kernels are drawn, against that device's ceilings; a
        kernel newly selected shows its own GPU."""
        self.ceilings_by_device = dict(ceilings_by_device or {})
        if self.device not in self.ceilings_by_device:
            self.device = next(iter(self.ceilings_by_device), None)
        self.inputs = inputs
        self.shown += 1
        selected = inputs.selected
        if selected is not None and selected.name != self._followed:
            self._followed = selected.name
            device = device_labels(selected.to_frame().T)[0] if "device" in selected.index else None
            if device in self.ceilings_by_device:
                self.device = str(device)
        if self.cursor is not None and (selected is None or selected.name != self.cursor[1]):
            self.cursor = None  # the table moved to another kernel

    def _figure_inputs(self, with_selection: bool) -> RooflineInputs | None:
        inputs = self.inputs
        if inputs is None:
            return None
        frame, ceilings, selected = inputs.frame, inputs.ceilings, inputs.selected
        if len(self.ceilings_by_device) > 1 and self.device is not None:
            frame = frame[device_labels(frame) == self.device]
            ceilings = self.ceilings_by_device[self.device]
            if selected is not None and selected.name not in frame.index:
                selected = None
        return RooflineInputs(
            frame,
            ceilings,
            inputs.levels,
            inputs.pipelines,
            selected if with_selection else None,
            inputs.instruction_roofs,
            inputs.tags,
        )

    @property
    def title(self) -> str:
        """The top row when the run has several GPUs: which one is shown."""
        if len(self.ceilings_by_device) < 2 or self.device is None:
            return ""
        which = self.devices.index(self.device) + 1
        title = f"GPU {which} of {len(self.devices)}: {printable(self.device)} (v: next GPU)"
        return ascii_safe(title) if self.ascii_mode else title

    def plan(
        self, width: int, height: int, *, with_selection: bool = True
    ) -> tuple[RooflineFigure, Layout] | None:
        """The figure and its layout on ``width`` × ``height`` cells: a function of the
        inputs, the device, the size and the point stepped to. Laid out without the
        selected kernel once per (inputs, size): the selection is drawn on top of that
        (``Layers``), so moving it costs what it changes."""
        drawn = self._drawn_at(width, height)
        if drawn is None:
            return None
        chosen = drawn.selected_points(self._selected_on(drawn) if with_selection else None)
        figure = replace(drawn.figure, selected=chosen) if chosen else drawn.figure
        return figure, drawn.layers.lay_out(chosen, self.cursor)

    def _selected_on(self, drawn: _Drawn) -> pd.Series | None:
        """The selected kernel, if it is plotted on ``drawn``'s GPU."""
        selected = None if self.inputs is None else self.inputs.selected
        if selected is not None and selected.name not in drawn.shown.frame.index:
            return None
        return selected

    def content(self) -> tuple[Any, ...]:
        """Everything a figure and its layout depend on but the size, the selected
        kernel and the point stepped to: each of ``RooflineInputs``' fields but the
        selection, each GPU's ceilings, the GPU shown, ASCII and the title. Frames and
        ceilings are named by identity (``Same``): new objects lay out again."""
        inputs = self.inputs
        assert inputs is not None
        return (
            Same(inputs.frame),
            Same(inputs.ceilings),
            inputs.levels,
            inputs.pipelines,
            Same(inputs.instruction_roofs),
            None if inputs.tags is None else tuple(inputs.tags.items()),
            tuple((device, Same(ceilings)) for device, ceilings in self.ceilings_by_device.items()),
            self.device,
            self.ascii_mode,
            self.title,
        )

    def _drawn_at(self, width: int, height: int) -> _Drawn | None:
        if self.inputs is None:
            return None
        return self._drawn.get((self.content(), width, height), lambda: self._lay_out(width, height))

    def _lay_out(self, width: int, height: int) -> _Drawn:
        """The figure of the inputs without a selection, laid out at ``width`` × ``height``."""
        shown = self._figure_inputs(False)
        assert shown is not None and self.inputs is not None
        cells = plot_cells(width, height)
        if shown.instruction_roofs is not None:
            roofs = shown.instruction_roofs
            chosen = roofs.get(self.device or "") or next(
                iter(roofs.values()), InstructionCeilings(None, {}, None)
            )
            figure = build_instruction_figure(
                shown.frame, chosen, levels=shown.levels, cells=cells, tags=shown.tags
            )
        else:
            # Zoomed, and little room above the top roof: rows are scarce at 80x24.
            figure = build_figure(
                shown.frame,
                shown.ceilings,
                levels=shown.levels,
                pipelines=list(shown.pipelines),
                cells=cells,
                zoom=True,
                headroom=EXPLORER_HEADROOM,
                counted=self.inputs.frame,  # every GPU's, as the status line
                tags=shown.tags,
            )
        layers = Layers(
            figure,
            max(width, 20),
            max(height, 4),
            ascii_mode=self.ascii_mode,
            title=self.title,
            axis_titles=AXIS_TITLES if shown.instruction_roofs is not None else None,
        )
        return _Drawn(self.inputs, dict(self.ceilings_by_device), shown, figure, layers)

    def draw(self, width: int, height: int) -> RooflineFigure | None:
        """Lay the roofline out on ``width`` × ``height`` cells and keep it (the figure
        and layout the keys and clicks then act on)."""
        planned = self.plan(width, height)
        if planned is None:
            return None
        self.figure, self.layout = planned
        self._last = self._drawn_at(width, height)
        return self.figure

    def redraw(self) -> None:
        """Lay the kept figure out again at its size (a new cursor)."""
        if self.figure is not None and self._last is not None:
            self.layout = self._last.layers.lay_out(self.figure.selected, self.cursor)

    def legend_rows(self, pane_width: int, pane_height: int, grouped: bool, content: Any = None) -> int:
        """The fewest rows (1 to ``LEGEND_ROWS``) in which the legend of the plot laid
        out in a pane's other rows fits. Chosen from the pane's size and what is plotted,
        never from the last draw: left to follow what the plot could not label, one
        screen could settle into two layouts. ``content`` names what is plotted but for
        the selection; while it stays equal, the rows are not worked out again."""
        key = (pane_width, pane_height, content if content is not None else self.shown, self.device, grouped)
        return self._legend_rows.get(key, lambda: self._fewest_legend_rows(pane_width, pane_height, grouped))

    def _fewest_legend_rows(self, pane_width: int, pane_height: int, grouped: bool) -> int:
        rows = LEGEND_ROWS
        width = legend_width(pane_width)
        for tried in range(1, LEGEND_ROWS):
            drawn = self._drawn_at(pane_width, pane_height - tried)
            if drawn is None:
                break
            figure, layout = drawn.figure, drawn.layers.lay_out([], self.cursor)
            text, _ = legend(
                figure,
                unlabelled_roofs(figure, layout),
                grouped,
                width,
                ascii_mode=self.ascii_mode,
                off_plot=off_plot_tags(self.inputs, drawn.shown, layout),
            )
            if len(text.wrap(_CONSOLE, width)) <= tried:
                rows = tried
                break
        return rows

    def picture(self, pane_width: int, pane_height: int, grouped: bool) -> RooflinePicture | None:
        """The whole pane at ``pane_width`` × ``pane_height``: the legend's rows, the plot
        in the rows left, and the legend with what it could not say."""
        rows = self.legend_rows(pane_width, pane_height, grouped)
        if self.draw(pane_width, pane_height - rows) is None:
            return None
        assert self.figure is not None and self.layout is not None
        text, overflow = self.legend(grouped, legend_width(pane_width), rows)
        return RooflinePicture(self.figure, self.layout, text, rows, overflow)

    def legend(self, grouped: bool, width: int, rows: int) -> tuple[Text, list[Said]]:
        """The legend of the picture last drawn (``legend``) in ``width`` × ``rows``. It
        reads the figure but for the selection, the roofs labelled on the plot and the
        tags off it: while those stay (a cursor move), the same answer, worked out once."""
        assert self.figure is not None and self._last is not None
        figure, unlabelled, off_plot = self.figure, self.unlabelled, self.off_plot
        key = (Same(self._last.figure), tuple(unlabelled), tuple(off_plot), grouped, width, rows)
        text, overflow = self._legends.get(
            key,
            lambda: legend(
                figure, unlabelled, grouped, width, rows, ascii_mode=self.ascii_mode, off_plot=off_plot
            ),
        )
        return text.copy(), list(overflow)

    # --- what the keys and the mouse do --------------------------------------------

    def step_point(self, step: int) -> PointCell | None:
        """Step to the next (1) or previous (-1) point left to right, from the one
        stepped to or else the selected kernel's first point; returns it."""
        if self.layout is None:
            return None
        current = self.cursor
        if current is None and self.figure is not None and self.figure.selected:
            selected = None if self.inputs is None else self.inputs.selected
            if selected is not None:
                current = (self.figure.selected[0][0], selected.name)
        point = nearest_in_order(self.layout.stops, current, step)
        if point is not None:
            self.choose(point)
        return point

    def point_at(self, col: int, row: int) -> PointCell | None:
        """The point drawn at (or a cell from) ``col``, ``row``, chosen; else None."""
        point = None if self.layout is None else self.layout.point_near(col, row)
        if point is not None:
            self.choose(point)
        return point

    def choose(self, point: PointCell) -> None:
        self.cursor = (point.level, point.kernel)
        self.redraw()

    def next_device(self) -> bool:
        """Show the next GPU's roofline; False when the run has one GPU."""
        devices = self.devices
        if len(devices) < 2:
            return False
        self.device = devices[(devices.index(self.device) + 1) % len(devices)] if self.device else devices[0]
        self.cursor = None
        return True
