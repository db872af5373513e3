"""The advise screen (key `a`): the step budget and the ranked findings at 80x24, and Enter
on a finding selects its kernel in the explorer with its details open."""

from __future__ import annotations

import pytest

from rooftui.analysis.advise_run import advise
from rooftui.views.advise import compact_waterfall_lines, finding_kernel
from tests.tui.conftest import SAMPLE, loaded, prepared_run, screen_text


@pytest.fixture(scope="module")
def advice(sample_run):
    return advise(sample_run)


def test_the_compact_waterfall_fits_its_lines_and_keeps_both_totals(advice):
    budget = advice.budgets["NVIDIA H200"]
    lines = compact_waterfall_lines(budget, 79, 9)
    assert len(lines) == 9 and max(len(line) for line in lines) <= 79
    assert lines[0].split()[:2] == ["measured", "step"] and lines[-1].split()[0] == "speed-of-light"
    assert any("more" in line for line in lines)  # the smaller classes folded into one bar


async def test_a_opens_the_budget_and_findings_within_80x24_and_enter_jumps_to_the_kernel(sample_app, advice):
    # one app: `a`, the screen's layout, escape; then `a` again and Enter on a finding
    # (its picture at 80x24: test_snapshots.py, advise-80x24)
    rank = next(i for i, f in enumerate(advice.findings) if f.kind == "kernel")
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.pause()
        assert type(app.screen).__name__ == "AdviseScreen"
        first_open = screen_text(app)
        lines = first_open.splitlines()
        assert len(lines) == 24 and max(len(line) for line in lines) <= 80
        assert lines[0].strip().startswith("Step budget: a bound")
        assert lines[1].strip().startswith("measured step")
        assert lines[9].strip().startswith("speed-of-light step")
        assert lines[10].startswith("  1. ") and f"{advice.findings[0].gain_s * 1e6:.0f} µs" in lines[10]
        budget = app.screen.query_one("#advise-budget").region
        findings = app.screen.query_one("#advise-findings").region
        evidence = app.screen.query_one("#advise-evidence").region
        assert budget.bottom <= findings.y and findings.height >= 4 and findings.bottom <= evidence.y
        assert evidence.bottom <= 23  # above the footer
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "ExplorerScreen"
        assert app.explorer.selected.name == app.explorer.rows.index[0]
        await pilot.press("a")
        await pilot.pause()
        await pilot.pause()
        # opened again: the advice the first open made (ExplorerModel.advice), same screen
        assert app.screen.advice is app.explorer.model.advice()
        assert screen_text(app) == first_open
        await pilot.press(*["down"] * rank, "enter")
        for _ in range(3):
            await pilot.pause()
        explorer = app.explorer
        assert app.screen is explorer
        assert explorer.selected is not None and explorer.selected["name"] == advice.findings[rank].subject
        assert explorer.query_one("DetailPane").display
        assert finding_kernel(advice, advice.findings[rank]) == advice.findings[rank].subject


def wgrad_by_hand(run) -> tuple[str, float, float]:
    """The sample's costliest kernel, its one wgrad launch (108.544 us): its largest term is
    its warp instructions at the run's issue rate (test_advise_terms.py recomputes every
    term of every launch); returns its name, its bound and its time."""
    from rooftui.analysis.instruction_roofline import ceilings_for

    issue = ceilings_for(run, "NVIDIA H200").issue
    row = run.kernels[run.kernels["name"].str.startswith("sm80_xmma_wgrad_implicit_gemm_indexed_wo_smem")]
    assert len(row) == 1 and issue is not None
    return (
        str(row["name"].iloc[0]),
        float(row["warp_instructions"].iloc[0]) / issue.value,
        float(row["time_s"].iloc[0]),
    )


def test_the_detail_pane_opens_with_the_verdict_in_words_a_user_acts_on(sample_run):
    from rich.console import Console

    from rooftui.analysis.advise import ISSUE_LIMIT
    from rooftui.analysis.advise_findings import verdict
    from rooftui.views.formats import percent, seconds
    from rooftui.views.tui.detail_text import describe

    loaded_run = prepared_run([SAMPLE])
    row = loaded_run.grouped.sort_values("gain_s", ascending=False).iloc[0]
    console = Console(width=100, color_system=None, record=True)
    console.print(describe(row, loaded_run.ceilings, None, False, 100))
    first = " ".join(console.export_text().splitlines()[:2])
    name, bound, time = wgrad_by_hand(sample_run)
    gain, step = time - bound, sample_run.kernels["time_s"].sum()
    assert row["name"] == name
    assert first.startswith(f"{verdict(ISSUE_LIMIT, bound / time)}; {seconds(gain)} to gain")
    assert f"({percent(gain / step)} of the run)" in first


def test_a_groups_gain_is_its_launches_gains_summed(sample_run, advice):

    loaded_run = prepared_run([SAMPLE])
    by_name = advice.launches.groupby("name")["gain_s"].sum()
    grouped = loaded_run.grouped.set_index("name")["gain_s"]
    assert grouped.to_dict() == pytest.approx(by_name.to_dict())
    assert loaded_run.invocations["gain_s"].sum() == pytest.approx(advice.launches["gain_s"].sum())


def test_the_summary_screen_opens_with_the_three_kernels_with_most_to_gain(sample_run):
    from rooftui.analysis.advise import ISSUE_LIMIT
    from rooftui.analysis.advise_findings import verdict
    from rooftui.views.advise import top_opportunity_lines
    from rooftui.views.formats import percent, seconds

    lines = top_opportunity_lines(prepared_run([SAMPLE]).grouped, 74)
    assert lines[0] == "Top 3 opportunities, µs to gain at best (a: the step budget)"
    assert max(len(line) for line in lines) <= 74
    name, bound, time = wgrad_by_hand(sample_run)
    share = percent((time - bound) / sample_run.kernels["time_s"].sum())
    shown = "sm80_xmma_wgrad_f16f16_f16f32_f32_tilesize16x64x64"  # the name as the shortener fits it
    assert lines[1].startswith(f"  {seconds(time - bound):>9} {share:>6}  {shown}") and name.startswith(
        "sm80"
    )
    assert " ".join(line.strip() for line in lines[2:4]).startswith(verdict(ISSUE_LIMIT, bound / time))
