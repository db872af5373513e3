"""The explorer app: loads a run in a worker, then hands it to the screens.

``make_app`` is the one way to build it, for the CLI, the tests and the
benchmarks. Loading never touches a widget: the worker posts ``LoadProgress``,
``RunLoaded`` or ``LoadFailed`` and the handlers here update the UI.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.message import Message

from rooftui.analysis.load_options import LoadOptions
from rooftui.errors import RooftuiError
from rooftui.views.text import ellipsis_mark, printable
from rooftui.views.tui.base_app import RooftuiBaseApp
from rooftui.views.tui.screens.explorer import ExplorerScreen
from rooftui.views.tui.view_state import LoadedRun

if TYPE_CHECKING:  # imported where used: pandas and the trace reader load late
    from rooftui.analysis import Run
    from rooftui.timeline.analysis import TimelineAnalysis


class LoadProgress(Message):
    def __init__(self, done: int, total: int, what: str) -> None:
        super().__init__()
        self.done, self.total, self.what = done, total, what


class RunLoaded(Message):
    def __init__(self, run: LoadedRun) -> None:
        super().__init__()
        self.run = run


class LoadFailed(Message):
    def __init__(self, error: RooftuiError) -> None:
        super().__init__()
        self.error = error


class TraceAnalyzed(Message):
    def __init__(self, analysis: TimelineAnalysis) -> None:
        super().__init__()
        self.analysis = analysis


class TraceFailed(Message):
    def __init__(self, error: RooftuiError) -> None:
        super().__init__()
        self.error = error


class RooftuiApp(RooftuiBaseApp):
    """Hierarchical roofline explorer."""

    TITLE = "rooftui"
    CSS_PATH = "app.tcss"
    HELP_INTRO = (
        "rooftui — hierarchical roofline explorer. Each kernel is drawn at up to "
        "three points, its arithmetic intensity at L1, L2 and HBM, at one FLOP/s."
    )

    def __init__(
        self,
        paths: Sequence[str | Path] = (),
        *,
        ceilings: str | Path | None = None,
        ascii_mode: bool = False,
        run: Run | LoadedRun | None = None,
        trace: str | Path | None = None,
        options: LoadOptions | None = None,
    ) -> None:
        super().__init__(ascii_mode=ascii_mode)
        # The CLI's report options (--ceilings, --phase, ...); `ceilings` alone is the short form.
        self.load_options = options or LoadOptions(ceilings=ceilings)
        self.trace_path = None if trace is None else Path(trace)
        self.trace_analysis: TimelineAnalysis | None = None
        self.paths = [Path(p) for p in paths]
        self.is_sample = not self.paths  # no report given: the bundled sample
        self.preloaded = run
        self.loaded: LoadedRun | None = None  # not `run`: App.run is the method
        self.load_error: RooftuiError | None = None
        self.explorer = ExplorerScreen(ascii_mode=ascii_mode)

    def on_mount(self) -> None:
        self.push_screen(self.explorer)
        self.load()

    @work(thread=True, exclusive=True, group="load")
    def load(self) -> None:
        """Read the reports (or take the preloaded run) and prepare both row views."""
        try:
            run = self.preloaded
            if run is None:
                run = self.load_options.load(
                    self.paths or _sample_paths(),
                    progress=self._post_progress,
                )
            loaded = run if isinstance(run, LoadedRun) else LoadedRun.from_run(run)
        except RooftuiError as err:
            self.post_message(LoadFailed(err))
            return
        self.post_message(RunLoaded(loaded))

    def _post_progress(self, done: int, total: int, what: str) -> None:
        self.post_message(LoadProgress(done, total, what))  # from the load worker's thread

    @on(LoadProgress)
    def _progress(self, message: LoadProgress) -> None:
        self.explorer.show_progress(message.done, message.total, message.what)

    @on(RunLoaded)
    def _loaded(self, message: RunLoaded) -> None:
        self.loaded = message.run
        self.explorer.show_run(message.run)

    @on(LoadFailed)
    def _failed(self, message: LoadFailed) -> None:
        # A report that cannot be read is a one-line error on the shell, as for
        # every other command: leave, and let the CLI print it and exit 2.
        self.load_error = message.error
        self.explorer.show_error(str(message.error))
        self.exit(return_code=2)

    def open_timeline(self) -> None:
        """Show the PyTorch-trace timeline, analysing the trace first if needed."""
        if self.trace_analysis is not None:
            self._push_timeline()
        elif self.trace_path is not None:
            self.notify(
                printable(f"analysing {self.trace_path.name}{ellipsis_mark(self.ascii_mode)}"),
                timeout=2,
                markup=False,
            )
            self.analyse_trace()

    @work(thread=True, exclusive=True, group="trace")
    def analyse_trace(self) -> None:
        from rooftui.timeline import analyze_trace

        try:
            analysis = analyze_trace(str(self.trace_path))
        except RooftuiError as err:
            self.post_message(TraceFailed(err))
            return
        self.post_message(TraceAnalyzed(analysis))

    @on(TraceAnalyzed)
    def _trace_analyzed(self, message: TraceAnalyzed) -> None:
        self.trace_analysis = message.analysis
        self._push_timeline()

    @on(TraceFailed)
    def _trace_failed(self, message: TraceFailed) -> None:
        self.notify(printable(message.error), title="timeline", severity="error", markup=False)

    def _push_timeline(self) -> None:
        from rooftui.views.tui.screens.timeline import TimelineScreen

        if self.trace_analysis is None:
            return
        self.push_screen(TimelineScreen(self.trace_analysis, ascii_mode=self.ascii_mode))


def _sample_paths() -> list[Path]:
    from rooftui.sample import sample_paths

    return list(sample_paths())


def make_app(
    paths: Sequence[str | Path] = (),
    *,
    ceilings: str | Path | None = None,
    ascii_mode: bool = False,
    run: Run | LoadedRun | None = None,
    trace: str | Path | None = None,
    options: LoadOptions | None = None,
) -> RooftuiApp:
    """The explorer for ``paths`` (the bundled sample when empty), or for an
    already-loaded ``run`` (a ``rooftui.analysis.Run``, or a ``LoadedRun`` already
    prepared from one, which the app then shows as it is).

    ``NO_COLOR`` in the environment is honoured by Textual itself; ``ascii_mode``
    also keeps every character ASCII for terminals without Unicode. ``trace``, a
    PyTorch profiler trace of the same run, enables the timeline screen (``t``).
    ``options`` carries every report option of the CLI (it supersedes ``ceilings``).
    """
    return RooftuiApp(paths, ceilings=ceilings, ascii_mode=ascii_mode, run=run, trace=trace, options=options)
