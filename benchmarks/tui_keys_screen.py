"""The explorer's CPU per app start, per key press and per screen opened, on the bundled
sample (a benchmark, not a test): what every Pilot test and every user's key press pays.

    python benchmarks/tui_keys_screen.py [--sizes 120x40,80x24] [--starts 5] [--repeat 10]
                                         [--keys down,up,...] [--ascii]

Run from a checkout's root: it imports that checkout's rooftui and tests.tui.conftest
(``explorer_of``: the app handed the run its load worker would prepare). Per size it
prints the median CPU (process time, all threads) of an app start to the loaded explorer
(the first start of the process, which also pays imports and the CSS parse, is left
out), then per key the median CPU of one press and the idle wait after it, and the
summary (``s``) and advise (``a``) screens opened and closed. Compare two checkouts by
running it in each, alternately (ABBA), on the same machine at the same time (ratios,
not absolute numbers: the machine's load moves both). ``benchmarks/tui_keys.py`` is the
same measure on one size with the first start included.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))

KEYS = "down,down,down,up,right,left,g,g,d,down,down,d,enter,escape,end,home"
SCREENS = "s,a"  # each opened, then closed with escape


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:7.1f} ms"


async def one_start(make: Callable[[], Any], size: tuple[int, int]) -> float:
    from tests.tui.conftest import loaded

    before = time.process_time()
    app = make()
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        spent = time.process_time() - before
    return spent


async def measure(size: tuple[int, int], keys: list[str], starts: int, repeat: int, ascii_mode: bool) -> None:
    from tests.tui.conftest import SAMPLE, explorer_of, loaded

    def make() -> Any:
        return explorer_of([SAMPLE], ascii_mode=ascii_mode)

    first = await one_start(make, size)
    warm = [await one_start(make, size) for _ in range(starts)]
    print(f"{size[0]}x{size[1]}{' ascii' if ascii_mode else ''}")
    first_ms = f"first of the process {first * 1000:.1f} ms"
    print(f"  app start to loaded: median {median_ms(warm)} CPU (n={len(warm)}; {first_ms})")
    per_key: dict[str, list[float]] = {key: [] for key in keys}
    per_screen: dict[str, list[float]] = {key: [] for key in SCREENS.split(",")}
    app = make()
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        for _ in range(repeat):
            for key in keys:
                before = time.process_time()
                await pilot.press(key)
                await pilot.pause()
                per_key[key].append(time.process_time() - before)
            for key in per_screen:
                before = time.process_time()
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
                await pilot.press("escape")
                await pilot.pause()
                per_screen[key].append(time.process_time() - before)
    for key, samples in per_key.items():
        print(f"  key {key:8} median {median_ms(samples)} CPU  (n={len(samples)})")
    for key, samples in per_screen.items():
        print(f"  open+close {key:2} median {median_ms(samples)} CPU  (n={len(samples)})")
    round_ms = sum(sum(samples) for samples in per_key.values()) / repeat * 1000
    print(f"  all keys: {round_ms:8.1f} ms CPU per round of {len(keys)} keys")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="120x40,80x24")
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--keys", default=KEYS)
    parser.add_argument("--ascii", action="store_true")
    args = parser.parse_args()
    for size in args.sizes.split(","):
        width, height = (int(part) for part in size.split("x"))
        asyncio.run(measure((width, height), args.keys.split(","), args.starts, args.repeat, args.ascii))


if __name__ == "__main__":
    main()
