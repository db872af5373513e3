"""`rooftui timeline TRACE --ascii`: the findings table in ASCII too, columns kept."""

from __future__ import annotations

from tests.timeline.paths import NAIVE_TRACE


def test_the_findings_table_is_ascii_with_its_columns_kept(capsys, monkeypatch):
    from rooftui.cli import main

    monkeypatch.setenv("COLUMNS", "100")
    main(["timeline", str(NAIVE_TRACE), "--ascii"])
    out = capsys.readouterr().out
    assert out.isascii()  # was box lines, "·", "–" and "µs"
    lines = out.splitlines()
    assert lines[2].startswith("+---") and lines[3].startswith("| # | cost/step | % step | finding / where")
    table = [line for line in lines if line.startswith(("|", "+"))]
    assert len({len(line) for line in table}) == 1  # folded one for one: every row as wide
    assert "where: steps 2-5 / data_loading" in out and " us" in out


def test_the_ascii_fold_keeps_widths():
    from rooftui.views.text import ascii_fold

    text = "108 µs · steps 2–5 … ▲ naïve"
    assert ascii_fold(text) == "108 us / steps 2-5 ~ ^ na?ve" and len(ascii_fold(text)) == len(text)
