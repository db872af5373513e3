import asyncio
import atexit
import contextlib
import copy
import gc
import inspect
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# Each pytest-xdist worker imports every test module (pytest rewrites its asserts first)
# and rooftui, and many tests start `python -m rooftui`; with PYTHONDONTWRITEBYTECODE
# set, none of that compiled code is kept and every worker and child process of every
# run compiles it again: ~4 s of CPU per worker's collection alone
# (benchmarks/results/2026-12-01-suite-cpu.md). The suite and the processes it starts
# write the bytecode of the checkout's modules beside them, in __pycache__ (git ignores
# it), as Python does by default; installed packages have theirs already.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Matplotlib keeps its font list in MPLCONFIGDIR, else under XDG_CACHE_HOME, which every
# test points at a folder of its own (below): each process that drew a figure built the
# list again (0.65 s against 0.40 s with it kept). One folder for the whole run, made by
# the process that first imports this file (the pytest-xdist controller; its workers and
# the commands tests start inherit it), removed when that process ends.
if "MPLCONFIGDIR" not in os.environ:
    os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(prefix="rooftui-tests-matplotlib-")
    atexit.register(shutil.rmtree, os.environ["MPLCONFIGDIR"], ignore_errors=True)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"
KNOWN = SAMPLES / "known_answer"
DEEPCAM = SAMPLES / "deepcam"


@pytest.fixture(autouse=True, scope="session")
def _empty_data_dir_for_the_session(tmp_path_factory):
    """Ceilings that `rooftui measure` saved on this machine never change a test's answer
    (session fixtures load runs before any function-scoped fixture runs)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data-session")))
        yield


@pytest.fixture(scope="session")
def _fresh_folders(tmp_path_factory):
    """``fresh(kind)``: a new empty folder under this worker's base temp, named by a count.
    ``tmp_path_factory.mktemp`` lists the whole base folder to find its next number, so two
    per test made the suite's last tests pay for all the folders before them (3.7% of the
    suite's CPU in one process); a counter costs nothing."""
    root = tmp_path_factory.mktemp("per-test")
    made = itertools.count()

    def fresh(kind: str) -> Path:
        path = root / f"{kind}-{next(made)}"
        path.mkdir()
        return path

    return fresh


@pytest.fixture(autouse=True)
def _own_data_dir(_fresh_folders, monkeypatch):
    """Every test gets its own empty user data directory: what one test saves there
    (a fake `rooftui measure` result) is seen by no other, nor written to the real one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(_fresh_folders("xdg-data")))


@pytest.fixture(scope="session")
def expected():
    """The known answers, written by kernels/known_answer itself on the GPU."""
    doc = json.loads((KNOWN / "expected.json").read_text())
    return {k["name"]: k for k in doc["kernels"]}


@pytest.fixture(autouse=True)
def _headless_apps_draw_only_what_a_test_reads(monkeypatch):
    """A headless app (``run_test``, the snapshot apps) draws nothing on a terminal: its
    driver discards every frame, yet Textual renders each screen update in full, ~30% of
    a key press's CPU. Here the update of the screen on top is not rendered; the layout,
    the messages and every widget's state are as before, and what a test reads is
    rendered from the widgets when it reads it (``screen_text``, a screenshot, the SVG
    export), as a fresh render of the same widgets. A frame no test reads is not drawn
    (``run_in_turn`` draws the screen its checks come back to once, after them all)."""
    from textual.screen import Screen

    draw = Screen._compositor_refresh  # Textual 8's (pyproject pins textual < 9)

    def refresh_unseen(screen: Screen) -> None:
        app = screen.app
        if not (app.is_headless and not app.is_inline and screen is app.screen):
            draw(screen)
            return
        screen._compositor._dirty_regions.clear()  # what render_update would have drawn
        screen._dirty_widgets.clear()
        app._update_mouse_over(screen)

    monkeypatch.setattr(Screen, "_compositor_refresh", refresh_unseen)


# What rooftui.cli.main() sets for the rest of its process (rooftui.cli.errors).
SIGNALS_THE_CLI_HANDLES = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def signal_handlers_kept():
    """``main()`` turns SIGTERM and SIGHUP into SystemExit for the rest of the process; run
    in-process, it would leave that in the pytest worker, where a SIGTERM (xdist stopping
    its workers, a timeout) would then raise inside whichever test runs. Puts back what
    was there before."""
    saved = {number: signal.getsignal(number) for number in SIGNALS_THE_CLI_HANDLES}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Each test (its fixtures included) leaves the worker's signal handlers as it found
    them, whether it calls ``main()`` through ``run_cli`` or directly."""
    with signal_handlers_kept():
        yield


@pytest.fixture(scope="session")
def load_once(_run_wide_report_cache):
    """``load_once(path, **options)`` is ``load_run([path], LoadOptions(**options))`` for a
    committed report, read once per worker (a cold load costs 0.3-1 s of CPU; many tests
    read the same sample with the same options) and given to each caller as a copy of its
    own, so a test may change what it gets. Only for loads nothing in the test changes:
    a test that saves ceilings (XDG_DATA_HOME) or writes its input loads it itself. Each
    load goes through the run-wide report cache (``shared_report_cache``), so a
    ``.ncu-rep``'s reader child runs once per run, not once per worker."""
    from rooftui.analysis import load_run
    from rooftui.analysis.load_options import LoadOptions

    loaded = {}

    def load(path, **options):
        key = (str(path), tuple(sorted(options.items())))
        if key not in loaded:
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("XDG_CACHE_HOME", str(_run_wide_report_cache))
                loaded[key] = load_run([path], LoadOptions(**options))
        return copy.deepcopy(loaded[key])

    return load


def the_sample():
    """The bundled sample's one report (``rooftui.sample.sample_paths``), for ``load_once``."""
    from rooftui.sample import sample_paths

    [report] = sample_paths()
    return report


def run_cli(*args, cwd=None, env=None, replace_env=False):
    """``rooftui ARGS`` in this process (click's CliRunner), through the same ``main`` as the
    real command, so errors become one line and exit code 2. Returns what a subprocess run
    returns (``returncode``, ``stdout``, ``stderr``). ``env`` adds to the environment, or is
    the whole environment with ``replace_env``; ``cwd`` is the working directory meanwhile."""
    from click.testing import CliRunner

    from rooftui.cli import main

    changes = {"NO_COLOR": "1", "COLUMNS": "80", **(env or {})}
    if replace_env:
        changes = {**{key: None for key in os.environ if key not in env}, **env}
    runner = CliRunner()
    previous = Path.cwd()
    with signal_handlers_kept(), runner.isolation(env=changes) as (out, err, _):
        os.chdir(cwd or ROOT)
        try:
            main([str(arg) for arg in args])
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        finally:
            sys.stdout.flush()  # what was written with sys.stdout.write is still buffered
            sys.stderr.flush()
            os.chdir(previous)
        return subprocess.CompletedProcess(args, code, out.getvalue().decode(), err.getvalue().decode())


def assert_one_line_error(result, *words):
    """A refused input as users must see it: exit 2, one line on stderr holding ``words``,
    no traceback."""
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def run_cli_process(*args, cwd=None, env=None):
    """The real ``rooftui`` command in a subprocess, for what only a real process shows
    (the interpreter's exit, what gets imported); most tests use ``run_cli``."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "rooftui", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=full_env,
        timeout=120,
    )


@pytest.fixture(scope="session", autouse=True)
def _report_cache_of_the_session(tmp_path_factory):
    """Module- and session-scoped fixtures load reports too: never into the user's cache."""
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved


@pytest.fixture(autouse=True)
def _report_cache_per_test(_fresh_folders, monkeypatch):
    """Each test starts with an empty report cache of its own (rooftui.ingest.cache),
    beside its tmp_path rather than in it, so tests may list their tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(_fresh_folders("cache")))


@pytest.fixture(scope="session")
def _run_wide_report_cache(tmp_path_factory):
    """The report cache every worker of this run shares (``shared_report_cache``)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    shared = root / "report-cache-of-the-run"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture
def shared_report_cache(_run_wide_report_cache, monkeypatch, _report_cache_per_test):
    """One report cache for the whole run, all workers together (rooftui.ingest.cache is
    safe for several processes: an entry is installed by rename), instead of the test's
    own empty one: a committed ``.ncu-rep`` is read by its reader child once per run, not
    once per test (~0.5-1.5 s of CPU each). Only for tests about what is done with a
    report, never for a test of reading one (the reader, its children, the cache): those
    must keep reading cold, so they keep the default."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(_run_wide_report_cache))
    return _run_wide_report_cache


# The garbage collector's thresholds in a process that runs tests: a young generation of
# 20,000 objects instead of Python's 700 (see pytest_configure).
GC_THRESHOLDS = (20_000, 10, 10)


def pytest_configure(config):
    """In each process that runs tests (an xdist worker, or this one with ``-n 0``):

    - a Pilot test's wait after a key, a resize or a pause ends when the app has nothing
      left to do, not after Textual's 20 ms sleeps (tests/textual_idle.py);
    - the garbage collector looks for cycles less often (``GC_THRESHOLDS``). With Python's
      700 it took 18.8-20.7 s of the suite's CPU (summed over the tests, timed by
      ``gc.callbacks``), 11.9 s of it in full collections of 0.1-0.3 s while an app's
      widgets were alive; with 20,000, 7.1 s and no full collection, for 4% more peak
      memory (benchmarks/results/2026-12-02-suite-round13.md). Only when cycles are freed
      changes; what a test checks does not depend on it."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        from tests import textual_idle

        textual_idle.install()
        gc.set_threshold(*GC_THRESHOLDS)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject.toml) starts one worker per CPU core. Two per core were chosen
    while the Pilot tests slept in Textual's 20 ms steps after every key, so a second worker
    used the core meanwhile. They no longer wait (tests/textual_idle.py), and on two cores
    four workers spent 1.17x the CPU of two (six turns, 0.99-1.24x) for 1.03x the wall:
    each worker pays its own start, collection and per-worker reads, and four share the
    cores' caches (benchmarks/results/2026-12-02-suite-round14.md).
    PYTEST_XDIST_AUTO_NUM_WORKERS still sets the number."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores or 1


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run ``async def`` tests on a fresh event loop (no async plugin is a dependency).

    The test gets the fixtures its signature names, from ``funcargs`` (public API: no
    private attribute of pytest's is read here)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        wanted = inspect.signature(pyfuncitem.obj).parameters
        arguments = {name: value for name, value in pyfuncitem.funcargs.items() if name in wanted}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None


@pytest.fixture
def snap_compare_sizes(snapshot, request):
    """pytest-textual-snapshot's ``snap_compare`` for an app shown at several terminal sizes
    in one session: ``compare(make_app, sessions, run_before, after_resize, prefix="")``
    starts ``make_app()`` once per session (a list of sizes) at its first size, runs
    ``run_before``, then screenshots it at each of the session's sizes in turn (resizing the
    terminal and running ``after_resize`` between them). Each screenshot is compared with
    the snapshot file ``TEST[PREFIXWxH].svg``, as ``snap_compare`` with ``terminal_size=(W, H)``
    in a test ``TEST[PREFIXWxH]`` compares (same files, same normalisation;
    ``--snapshot-update`` rewrites them). Every name must be declared with
    ``@pytest.mark.snapshots(NAME, ...)`` (tests/test_snapshot_files.py reads the marker),
    and every name declared must be compared by the end of the test.

    A fresh start costs 1-3 s of CPU, a resize a fraction of it. Share a session only
    between sizes where a resize draws what a fresh start at that size draws: the stored
    files come from fresh starts, so a session that draws anything else fails."""
    import inspect

    from pytest_textual_snapshot import SVGImageExtension

    snapshot = snapshot.use_extension(SVGImageExtension)
    marker = request.node.get_closest_marker("snapshots")
    declared = set(marker.args) if marker else set()

    def screenshots(app, sizes, run_before, after_resize) -> dict:
        async def each_size(pilot) -> None:
            async def settle(step) -> None:
                if step is not None:
                    result = step(pilot)
                    if inspect.isawaitable(result):
                        await result
                await settle_for_screenshot(pilot)

            shots = {}
            for index, size in enumerate(sizes):
                if index:
                    await pilot.resize_terminal(*size)
                await settle(after_resize if index else run_before)
                shots[size] = pilot.app.export_screenshot(title=pilot.app.title, simplify=True)
            pilot.app.exit(shots)

        shots = app.run(headless=True, auto_pilot=each_size, size=sizes[0])
        assert shots is not None, "the app ended before its screenshots"
        return shots

    compared: set[str] = set()
    ended = []  # whether every compare() call came to its end

    def compare(make_app, sessions, run_before=None, after_resize=None, prefix="") -> None:
        ended.append(False)
        shots = {}
        for sizes in sessions:
            for (width, height), svg in screenshots(make_app(), sizes, run_before, after_resize).items():
                shots[f"{prefix}{width}x{height}"] = svg
        check_screenshots(shots, declared, compared, snapshot, request)
        ended[-1] = True

    yield compare
    if ended and all(ended):  # a declared name no screenshot was compared with: a file never checked
        assert compared == declared, f"declared but never compared: {sorted(declared - compared)}"


async def settle_for_screenshot(pilot) -> None:
    """What textual._doc.take_svg_screenshot (snap_compare) does before its screenshot."""
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()


def check_screenshots(shots: dict, declared: set, compared: set, snapshot, request) -> None:
    """Each screenshot (name -> SVG) against its stored file: every name declared by the
    test's ``snapshots`` marker, noted as compared, and all that differ named at once."""
    differ = []
    for name, svg in shots.items():
        assert name in declared, f"declare it: @pytest.mark.snapshots({name!r}, ...)"
        compared.add(name)
        if not snapshot(name=name) == svg:
            differ.append(name)
    assert differ == [], f"screenshots differ from __snapshots__/{request.node.path.stem}: {differ}"


@pytest.fixture
def snap_compare_steps(snap_compare_sizes, snapshot, request):
    """Screenshots of one app brought through a sequence of states, each compared with its
    snapshot file: ``compare(app, size, steps)`` starts ``app`` at ``size`` (an app start
    costs 0.5-3 s of CPU, a screenshot 0.01-0.05 s) and, for each ``(name, step)`` of
    ``steps`` in turn, runs ``step(pilot)`` (keys, a resize, the checks of a Pilot test),
    waits as ``snap_compare_sizes`` waits before its screenshots and, where ``name`` is not
    None, compares a screenshot with ``TEST[NAME].svg`` (``--snapshot-update`` rewrites it).
    Names are declared with ``@pytest.mark.snapshots`` as for ``snap_compare_sizes`` (this
    fixture uses it, so tests/test_snapshot_files.py expects the same files), and each must
    be compared.

    A state is what its keys draw after the steps before it: the stored pictures are
    compared as they are, so a step that leaves anything behind (a scroll offset, a
    filter) fails the next picture."""
    from pytest_textual_snapshot import SVGImageExtension

    snapshot = snapshot.use_extension(SVGImageExtension)
    marker = request.node.get_closest_marker("snapshots")
    declared = set(marker.args) if marker else set()
    compared: set[str] = set()
    ended = []  # whether every compare() call came to its end

    def compare(app, size: tuple[int, int], steps) -> None:
        ended.append(False)

        async def run(pilot) -> None:
            shots = {}
            for name, step in steps:
                result = step(pilot)
                if inspect.isawaitable(result):
                    await result
                await settle_for_screenshot(pilot)
                if name is not None:
                    shots[name] = pilot.app.export_screenshot(title=pilot.app.title, simplify=True)
            pilot.app.exit(shots)

        shots = app.run(headless=True, auto_pilot=run, size=size)
        assert shots is not None, "the app ended before its screenshots"
        check_screenshots(shots, declared, compared, snapshot, request)
        ended[-1] = True

    yield compare
    if ended and all(ended):  # a declared name no screenshot was compared with: a file never checked
        assert compared == declared, f"declared but never compared: {sorted(declared - compared)}"


COLLECTED: list[pytest.Item] = []


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Every test collected, before -k or -m deselect any (tests/test_snapshot_files.py);
    then the tmux tests go first. They take the longest (a real terminal, keys at a
    person's pace: ~16 s on a quiet machine) and spend it waiting: last in the order (as
    tests/tui/test_tmux.py sorts), one kept a worker busy after the others had finished
    (pytest-xdist hands tests out in this order); first, the other workers use the cores
    meanwhile."""
    COLLECTED[:] = items
    items.sort(key=lambda item: item.get_closest_marker("tmux") is None)  # stable: the rest keep their order


def pytest_collection_finish(session):
    """Everything the tests import is loaded once collection ends (Textual, pandas,
    rooftui): frozen, those objects are left out of the garbage collector's scans for the
    rest of the run (they live as long as the worker does)."""
    gc.freeze()
