"""Reading several reports at once: from the cache where it has them, the rest in parallel.

One thread per report being read, as many as the machine has cores. A ``.ncu-rep``
is read by its own child process (``ncu_rep``), so those run truly in parallel;
``ncu_rep`` also holds a child back while the ones running would leave too little
memory for it. CSV exports are parsed in the threads themselves.

``start_reading`` starts the ``.ncu-rep`` readers without importing pandas, so a
command can start them first and import the rest of rooftui while they read;
``Reading.result()`` then waits for them and reads the cached and CSV reports and
directories (``rooftui.ingest.read_reports``; a directory is neither cached nor
started early). A ``.ncu-rep`` reader writes the report's cache entry itself; it is
decoded here as a cached report is (``ncu_rep.to_raw_report``), a CSV report's entry
written here (``ReportCache.put``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.errors import reading
from rooftui.ingest.cache import ReportCache, enabled_by_default
from rooftui.ingest.files import is_directory, logical_name

if TYPE_CHECKING:
    from rooftui.ingest.ncu_rep import Fetched
    from rooftui.ingest.report import RawReport

# done, total, what: called as each report is read (what: the report, "(cached)" if so).
Progress = Callable[[int, int, str], None]


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def read_paths(
    paths: Sequence[str | Path],
    *,
    cache: bool | ReportCache | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
) -> list[list[RawReport]]:
    """The reports of each of ``paths``, in the order given (see ``start_reading``)."""
    return start_reading(paths, cache=cache, workers=workers).result(progress)


def start_reading(
    paths: Sequence[str | Path],
    *,
    cache: bool | ReportCache | None = None,
    workers: int | None = None,
) -> Reading:
    """Start reading ``paths``; ``.result()`` gives their RawReports.

    ``cache``: True/False, a ReportCache, or None for the default (on unless
    ``ROOFTUI_NO_CACHE`` is set). ``workers`` bounds the reports read at once
    (default: the usable cores).
    """
    if cache is None:
        cache = enabled_by_default()
    store = (ReportCache() if cache else None) if isinstance(cache, bool) else cache
    return Reading(list(paths), store, workers or usable_cores())


class Reading:
    """Reports being read in the background, in threads of one pool."""

    def __init__(self, paths: list[str | Path], store: ReportCache | None, workers: int) -> None:
        self.paths = paths
        self.store = store
        files = [not is_directory(path) for path in paths]  # False where unstat-able: read says why
        self.keys = [store.key(path) if store and is_file else None for path, is_file in zip(paths, files)]
        self._pool = ThreadPoolExecutor(
            max_workers=max(1, min(workers, len(paths) or 1)), thread_name_prefix="rooftui-read"
        )
        # .ncu-rep readers start now; cached and CSV reports wait for result(),
        # as decoding or parsing them needs pandas.
        self._futures: dict[Future, int] = {}
        self._ncu_rep = [
            files[i] and logical_name(Path(path)).endswith(".ncu-rep") for i, path in enumerate(paths)
        ]
        started = [
            i
            for i, key in enumerate(self.keys)
            if self._ncu_rep[i] and not (key is not None and store is not None and store.has(key))
        ]
        # The cores are shared among the readers running at once; each reader's processes
        # share one memory budget (ncu_rep._reader_memory), however many they are.
        self._children = max(1, usable_cores() // max(1, min(workers, len(started))))
        for i in started:
            self._futures[self._fetch(i)] = i

    def _fetch(self, i: int) -> Future:
        return self._pool.submit(_fetch, self.paths[i], self._children, self.store, self.keys[i])

    def result(self, progress: Progress | None = None) -> list[list[RawReport]]:
        """The reports of each path, in the order given: one per file, a directory's
        (``rooftui.ingest.read_reports``). A path that cannot be read raises its
        InputError (the first such in that order) once the paths being read have
        finished; those not started yet are not read."""
        from rooftui.ingest import read_reports

        total = len(self.paths)
        found: list[list[RawReport] | None] = [None] * total
        done = 0
        if progress:
            progress(0, total, "")
        started = set(self._futures.values())
        with self._pool:
            for i, path in enumerate(self.paths):
                if i in started:
                    continue
                hit = self.store.get(path) if self.store and self.keys[i] else None
                if hit is None and self._ncu_rep[i]:  # its entry was unreadable: read again
                    self._futures[self._fetch(i)] = i
                elif hit is None:
                    self._futures[self._pool.submit(read_reports, path)] = i
                else:
                    found[i] = [hit]
                    done += 1
                    if progress:
                        progress(done, total, f"{path} (cached)")
            pending = set(self._futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                failed = [f for f in finished if f.exception() is not None]
                if failed:
                    for future in pending:
                        future.cancel()
                    wait(pending)
                    _close_unread(finished | pending)
                    failed += [f for f in pending if not f.cancelled() and f.exception() is not None]
                    error = min(failed, key=self._futures.__getitem__).exception()
                    assert error is not None  # failed holds only futures that raised
                    raise error
                for future in sorted(finished, key=self._futures.__getitem__):
                    i = self._futures[future]
                    got = future.result()
                    if self._ncu_rep[i]:  # a reader child's entry, not decoded yet
                        from rooftui.ingest.ncu_rep import to_raw_report

                        with reading(Path(self.paths[i])):
                            got = [to_raw_report(got)]
                    elif self.store and self.keys[i] and len(got) == 1:
                        self.store.put(self.paths[i], got[0], self.keys[i])
                    found[i] = got
                    done += 1
                    if progress:
                        progress(done, total, str(self.paths[i]))
        return [reports or [] for reports in found]


def _fetch(path: str | Path, children: int, store: ReportCache | None, key: str | None) -> Fetched:
    """``fetch_ncu_rep`` with what a damaged report raises turned into one line."""
    from rooftui.ingest.ncu_rep import fetch_ncu_rep

    with reading(Path(path)):
        return fetch_ncu_rep(path, children=children, store=store, key=key)


def _close_unread(futures: set[Future]) -> None:
    """Delete the entries that reader children wrote for reads given up."""
    from rooftui.ingest.ncu_rep import Fetched

    for future in futures:
        if future.done() and not future.cancelled() and future.exception() is None:
            got = future.result()
            if isinstance(got, Fetched):
                got.close()
