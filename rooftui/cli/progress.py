"""One progress display while reports load: a rich bar on stderr, only on a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.views.text import printable

if TYPE_CHECKING:
    from rooftui.ingest.parallel import Progress


@contextmanager
def load_progress() -> Iterator[Progress | None]:
    """A ``progress`` callback for ``load_run`` that draws a transient bar (reports read
    of all, the last one read, time so far) on stderr; None when stderr is not a
    terminal, so pipes and files get nothing but the output."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("reading reports"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=None)

        def update(done: int, total: int, what: str) -> None:
            shown = what if what in ("", "analysing") else Path(what).name
            bar.update(task, completed=done, total=total, description=printable(shown))

        yield update
