"""Tags 1-5 name the run's five heaviest kernels and stay on them: the table always
shows them, whatever the size, the find bar or ``g``; the plot draws each beside one of
its kernel's points or the legend says which it could not.

The independent answer: the five heaviest kernels with FLOPs, by their launches' time
summed per name, worked out here with pandas from the kernel table.
"""

from __future__ import annotations

import pytest

from rooftui.views.tui.explorer_model import TAG_WIDTH, ExplorerModel
from rooftui.views.tui.view_state import LoadedRun
from tests.tui.conftest import REPO, SAMPLE, prepared_run
from tests.tui.test_roofline_layout import assert_no_label_hides_anything

RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]
# The roofline pane at 80x24 (and with the find bar open), 120x40 and 200x60.
PANES = [(80, 12), (80, 11), (120, 24), (200, 40)]


@pytest.fixture(scope="module")
def sample() -> LoadedRun:
    return prepared_run([SAMPLE])


def heaviest_by_hand(run: LoadedRun, keys: list[str]) -> list[tuple]:
    launches = run.invocations
    worked = launches[(launches["flops"] > 0) & (launches["flop_rate"] > 0)]
    time = worked.groupby(keys, sort=False)["time_s"].sum().sort_values(ascending=False, kind="stable")
    return list(time.index[:5])


def tagged(model: ExplorerModel) -> dict[str, str]:
    """Tag -> kernel name, as the table's name column shows them on every row."""
    page = model.table_page(0, len(model.positions), name_width=60)
    tags = {}
    for row, position in zip(page, model.positions):
        tag = row[0][:TAG_WIDTH].strip()
        if tag:
            tags[tag] = model.state.all_rows["name"].iat[int(position)]
    return tags


@pytest.mark.parametrize("pane", PANES, ids=lambda p: f"{p[0]}x{p[1]}")
@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
def test_the_five_heaviest_keep_their_tags_at_every_size_and_through_g(sample, pane, ascii_mode):
    expected = {str(i + 1): name for i, name in enumerate(heaviest_by_hand(sample, ["name"]))}
    model = ExplorerModel(sample, ascii_mode=ascii_mode)
    for grouped in (True, False):
        if not grouped:
            model.toggle_grouped()
        model.update_roofline()
        picture = model.roofline_picture(*pane)
        assert tagged(model) == expected, "the table shows every tag, on the same kernels"
        drawn = {label.text: label for label in picture.layout.labels if label.series == "tag"}
        said = " · ".join([picture.legend.plain, *(s.text for s in picture.overflow)])
        off = [tag for tag in expected if tag not in drawn]
        if off:
            assert ("tags " if len(off) > 1 else "tag ") + ", ".join(off) + " off the plot" in said
        for tag, label in drawn.items():
            # beside its own kernel's point: next to it, or one cell further out
            mine = [p for p in picture.layout.points if p.kernel == label.kernel]
            assert model.state.all_rows["name"].iat[int(label.kernel)] == expected[tag]
            assert any(abs(p.row - label.row) <= 2 and abs(p.col - label.col) <= 2 for p in mine)
        assert_no_label_hides_anything(picture.figure, picture.layout, ascii_mode)


def test_at_80x24_the_grouped_sample_places_every_tag_that_has_room_and_names_the_other(sample):
    # The re-profiled sample (L2 counted once) crowds tag 2's kernel, batchnorm_fwtr: every
    # cell within two of its two points is a point, a roof line, or a blank beside a point,
    # so no label fits without hiding something; the legend says so instead.
    model = ExplorerModel(sample)
    model.update_roofline()
    picture = model.roofline_picture(80, 12)
    placed = sorted(label.text for label in picture.layout.labels if label.series == "tag")
    assert placed == list("1345")
    said = " · ".join([picture.legend.plain, *(s.text for s in picture.overflow)])
    assert "tag 2 off the plot" in said
    points = {(p.row, p.col) for p in picture.layout.points}
    tag2 = [p for p in picture.layout.points if str(model.state.tags().get(int(p.kernel), "")) == "2"]
    assert tag2, "tag 2's kernel is plotted"
    for p in tag2:  # no blank cell beside it whose other side is blank too
        for dc in (-2, -1, 1, 2):
            col = p.col + dc
            if 0 <= col < picture.layout.width and picture.layout.kinds[p.row][col] == "":
                assert (
                    (p.row, col - 1) in points
                    or (p.row, col + 1) in points
                    or not (0 < col < picture.layout.width - 1)
                ), (p, col)


def test_a_filter_hides_a_tagged_kernel_without_moving_the_other_tags(sample):
    from rooftui.analysis.filters import KernelFilter

    model = ExplorerModel(sample)
    before = tagged(model)
    model.set_filter(KernelFilter(name="batchnorm"))
    after = tagged(model)
    assert after and all(before[tag] == name for tag, name in after.items())
    assert set(after) < set(before)


def test_with_two_gpus_the_tags_of_the_other_gpu_are_named_and_v_shows_them():
    run = prepared_run(RANKS)
    expected = heaviest_by_hand(run, ["device", "rank", "name"])
    model = ExplorerModel(run)
    model.update_roofline()
    rows = model.state.all_rows
    tags = {tag: tuple(rows[["device", "rank", "name"]].iloc[p]) for p, tag in model.state.tags().items()}
    assert [tags[str(i + 1)] for i in range(5)] == expected
    on_first = {t for t, key in tags.items() if key[0] == model.roofline.devices[0]}
    seen = set()
    for _ in model.roofline.devices:
        picture = model.roofline_picture(120, 24)
        here = {label.text for label in picture.layout.labels if label.series == "tag"}
        elsewhere = sorted(set(tags) - here, key=int)
        assert f"tags {', '.join(elsewhere)} on another GPU (v)" in picture.legend.plain
        seen |= here
        model.next_device()
    assert seen == set(tags) and on_first and on_first != set(tags)
