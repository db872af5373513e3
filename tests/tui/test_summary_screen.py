"""The explorer's summary screen (``s``) on a two-rank run: the per-rank table `rooftui
summary` prints, in both widths, in Unicode and ASCII."""

from __future__ import annotations

import pytest

from tests.tui.conftest import REPO, explorer_of, loaded, screen_text

RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
async def test_the_summary_screen_of_two_ranks_has_a_row_per_rank(ascii_mode):
    # one app per mode, resized; the screen is opened at each size (it lays its tables
    # out for the width it opens at)
    app = explorer_of(RANKS, ascii_mode=ascii_mode)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        launches = app.explorer.state.run.invocations.groupby("rank").size().to_dict()
        for size in ((80, 24), (120, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.press("s")
            await pilot.pause()
            ranks = app.screen.query_one("#summary-ranks")
            ranks.scroll_visible(animate=False, top=True)
            await pilot.pause()
            text = screen_text(app).splitlines()[ranks.region.y : ranks.region.bottom]
            assert text[0].strip().startswith("Per rank")
            rows = [line.split() for line in text if line.split()[:1] in (["0"], ["1"])]
            # rank, its GPU (wrapped at 80 columns), its launches
            assert [(r[0], r[1]) for r in rows] == [("0", "NVIDIA"), ("1", "NVIDIA")]
            assert [str(launches[r[0]]) in r[2:7] for r in rows] == [True, True]
            assert " ".join(text).count("[device") == 2  # NVIDIA H200 [device 0], [device 1]
            assert all(len(line) <= size[0] for line in screen_text(app).splitlines())
            if ascii_mode:
                assert all(ord(ch) < 128 for ch in screen_text(app))
            await pilot.press("escape")
