"""`rooftui summary` of several ranks (issue 24 item 10): each row says its rank, and its
time as a share of that rank's kernel time, not of all ranks together."""

from __future__ import annotations

import csv
import io

from rooftui.cli import main
from tests.conftest import SAMPLES

RANKS = [str(SAMPLES / "multigpu" / f"ddp.rank{rank}.raw.csv.xz") for rank in (0, 1)]


def test_each_row_says_its_rank_and_its_share_of_that_ranks_time(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "140")
    main(["summary", *RANKS, "--format", "csv"])
    launches = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    rank_time = {rank: sum(float(row["time_s"]) for row in launches if row["rank"] == rank) for rank in "01"}
    wgrad = [row for row in launches if row["name"].startswith("sm80_xmma_wgrad_implicit_gemm_indexed_wo")]
    assert sorted(row["rank"] for row in wgrad) == ["0", "1"]  # one launch on each GPU

    main(["summary", *RANKS, "--group", "--top", "4"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["kernel", "rank", "n", "time", "%rank"]
    rows = [line.split() for line in lines if line.startswith("sm80_xmma_wgrad")]
    assert sorted(cells[1] for cells in rows) == ["0", "1"]
    for cells in rows:
        launch = next(row for row in wgrad if row["rank"] == cells[1])
        share = 100 * float(launch["time_s"]) / rank_time[cells[1]]
        assert cells[4] == f"{share:.0f}%" and 7 <= share < 8  # of its rank's 1.46 ms, not 4% of both
    assert any(line.startswith("%rank: share of the row's rank's kernel time") for line in lines)
