"""The explorer's CPU per app start, per key press and per screen opened, on the bundled
sample (a benchmark, not a test): what every Pilot test and every user's key press pays.

    python benchmarks/tui_keys_screen.py [--sizes 120x40,80x24] [--starts 5] [--repeat 10]
                                         [--keys down,up,...] [--ascii] [--calls]

Run from a checkout's root: it imports that checkout's rooftui and tests.tui.conftest
(``explorer_of``: the app handed the run its load worker would prepare). Per size it
prints the median CPU (process time, all threads) of an app start to the loaded explorer
(the first start of the process, which also pays imports and the CSS parse, is left
out), then per key the median CPU of one press and the idle wait after it, and the
summary (``s``) and advise (``a``) screens opened and closed. Compare two checkouts by
running it in each, alternately (ABBA), on the same machine at the same time (ratios,
not absolute numbers: the machine's load moves both). ``benchmarks/tui_keys.py`` is the
same measure on one size with the first start included.

``--calls`` counts Python function calls (cProfile's total, each phase profiled on its
own) instead of CPU time: slower, but the same on a loaded machine as on a quiet one,
for a shared machine whose load moves CPU times by ±30%.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))

KEYS = "down,down,down,up,right,left,g,g,d,down,down,d,enter,escape,end,home"
SCREENS = "s,a"  # each opened, then closed with escape


class Meter:
    """CPU seconds (``process_time``) or, with ``calls``, Python function calls."""

    def __init__(self, calls: bool) -> None:
        self.calls = calls
        self._profile: cProfile.Profile | None = None
        self._start = 0.0

    def start(self) -> None:
        if self.calls:
            self._profile = cProfile.Profile()
            self._profile.enable()
        else:
            self._start = time.process_time()

    def stop(self) -> float:
        if self._profile is None:
            return time.process_time() - self._start
        self._profile.disable()
        calls = float(pstats.Stats(self._profile).total_calls)  # type: ignore[attr-defined]
        self._profile = None
        return calls

    def show(self, samples: list[float]) -> str:
        middle = statistics.median(samples)
        return f"{middle:9,.0f} calls" if self.calls else f"{middle * 1000:7.1f} ms CPU"


METER = Meter(calls=False)


def median_ms(samples: list[float]) -> str:
    return METER.show(samples)


async def one_start(make: Callable[[], Any], size: tuple[int, int]) -> float:
    from tests.tui.conftest import loaded

    METER.start()
    app = make()
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        spent = METER.stop()
    return spent


async def measure(size: tuple[int, int], keys: list[str], starts: int, repeat: int, ascii_mode: bool) -> None:
    from tests.tui.conftest import SAMPLE, explorer_of, loaded

    def make() -> Any:
        return explorer_of([SAMPLE], ascii_mode=ascii_mode)

    first = await one_start(make, size)
    warm = [await one_start(make, size) for _ in range(starts)]
    print(f"{size[0]}x{size[1]}{' ascii' if ascii_mode else ''}")
    first_ms = f"first of the process {median_ms([first]).strip()}"
    print(f"  app start to loaded: median {median_ms(warm)} (n={len(warm)}; {first_ms})")
    if not repeat:  # app starts only
        return
    per_key: dict[str, list[float]] = {key: [] for key in keys}
    per_screen: dict[str, list[float]] = {key: [] for key in SCREENS.split(",")}
    per_round: list[float] = []  # all keys once
    app = make()
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        for _ in range(repeat):
            round_spent = 0.0
            for key in keys:
                METER.start()
                await pilot.press(key)
                await pilot.pause()
                per_key[key].append(METER.stop())
                round_spent += per_key[key][-1]
            per_round.append(round_spent)
            for key in per_screen:
                METER.start()
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
                await pilot.press("escape")
                await pilot.pause()
                per_screen[key].append(METER.stop())
    for key, samples in per_key.items():
        print(f"  key {key:8} median {median_ms(samples)}  (n={len(samples)})")
    for key, samples in per_screen.items():
        print(f"  open+close {key:2} median {median_ms(samples)}  (n={len(samples)})")
    print(f"  all keys: median {median_ms(per_round)} per round of {len(keys)} keys")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="120x40,80x24")
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--keys", default=KEYS)
    parser.add_argument("--ascii", action="store_true")
    parser.add_argument("--calls", action="store_true", help="count Python function calls, not CPU")
    args = parser.parse_args()
    METER.calls = args.calls
    for size in args.sizes.split(","):
        width, height = (int(part) for part in size.split("x"))
        asyncio.run(measure((width, height), args.keys.split(","), args.starts, args.repeat, args.ascii))


if __name__ == "__main__":
    main()
