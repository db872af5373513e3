"""The explorer's CPU per key press and per app start on the bundled sample (a benchmark,
not a test): what every Pilot test and every user's key press pays.

    python benchmarks/tui_keys.py [--size 120x40] [--repeat 20] [--keys down,up,g,d] [--parts]

Run from a checkout's root: it imports that checkout's rooftui and tests.tui.conftest
(``explorer_of``: the app handed the run its load worker would prepare). Prints the CPU
(process time, all threads) of the app's start to the loaded explorer, then per key the
median CPU of one press and the idle wait after it. Compare two checkouts by running it
in each, alternately, on the same machine at the same time of day (ratios, not absolute
numbers: the machine's load moves both).

``--parts`` also prints where the keys' CPU went, per round of keys: each widget's
rendering of its lines (``Widget.render_lines``, by widget) and the roofline's model
(``ExplorerModel.update_roofline``, ``RooflineView.draw``): names both checkouts have.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

KEYS = "down,up,down,right,left,g,g,d,d,enter,escape"


class Parts:
    """CPU spent inside chosen methods while ``on``, by name (the outermost call only)."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.on = False
        self._depth = 0

    def wrap(self, owner: type, method: str, name) -> None:
        original = getattr(owner, method)

        def timed(this, *args, **kwargs):
            if not self.on or self._depth:
                return original(this, *args, **kwargs)
            self._depth += 1
            before = time.process_time()
            try:
                return original(this, *args, **kwargs)
            finally:
                key = name(this)
                self.cpu[key] = self.cpu.get(key, 0.0) + time.process_time() - before
                self._depth -= 1

        setattr(owner, method, timed)


def watch_parts() -> Parts:
    from textual.widget import Widget

    from rooftui.views.tui.explorer_model import ExplorerModel
    from rooftui.views.tui.roofline_view import RooflineView

    parts = Parts()
    parts.wrap(Widget, "render_lines", lambda widget: f"render {type(widget).__name__}#{widget.id or ''}")
    parts.wrap(ExplorerModel, "update_roofline", lambda _: "model ExplorerModel.update_roofline")
    parts.wrap(RooflineView, "draw", lambda _: "model RooflineView.draw")
    return parts


async def measure(size: tuple[int, int], keys: list[str], repeat: int, parts: Parts | None) -> None:
    from tests.tui.conftest import SAMPLE, explorer_of, loaded

    start = time.process_time()
    app = explorer_of([SAMPLE])
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        print(f"app start to loaded: {(time.process_time() - start) * 1000:8.1f} ms CPU")
        per_key: dict[str, list[float]] = {key: [] for key in keys}
        if parts is not None:
            parts.on = True
        for _ in range(repeat):
            for key in keys:
                before = time.process_time()
                await pilot.press(key)
                await pilot.pause()
                per_key[key].append((time.process_time() - before) * 1000)
    for key, samples in per_key.items():
        print(f"key {key:8} median {statistics.median(samples):7.1f} ms CPU  (n={len(samples)})")
    print(f"all keys: {sum(sum(s) for s in per_key.values()) / repeat:8.1f} ms CPU per round")
    if parts is not None:
        for name, cpu in sorted(parts.cpu.items(), key=lambda item: -item[1])[:12]:
            print(f"  {cpu * 1000 / repeat:7.1f} ms CPU per round  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--keys", default=KEYS)
    parser.add_argument("--parts", action="store_true", help="where the keys' CPU went")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.split("x"))
    parts = watch_parts() if args.parts else None
    asyncio.run(measure((width, height), args.keys.split(","), args.repeat, parts))


if __name__ == "__main__":
    main()
