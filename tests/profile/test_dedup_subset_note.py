"""Opening the .ncu-rep of a `rooftui profile --dedup` run (now the default) shows only the
launches its full run profiled: the load says so and names REPORT.raw.csv, which has every
launch. Any other .ncu-rep gets no such note."""

from __future__ import annotations

from rooftui.analysis import load_run
from rooftui.notes import kind_of
from tests.conftest import KNOWN


def test_a_deduplicated_profiles_ncu_rep_says_it_is_a_subset_and_names_the_full_table(
    tmp_path, shared_report_cache
):
    # a link: the note comes from the sidecar beside the path opened, not from the reading
    (tmp_path / "step.ncu-rep").symlink_to(KNOWN / "known_answer.ncu-rep")
    plain = load_run([tmp_path / "step.ncu-rep"])
    assert not [n for n in plain.notes if kind_of(n) == "dedup_subset"]
    (tmp_path / "step.signatures.json").write_text("{}", encoding="utf-8")
    run = load_run([tmp_path / "step.ncu-rep"])
    said = [n for n in run.notes if kind_of(n) == "dedup_subset"]
    assert len(said) == 1
    assert "holds only the launches a deduplicated rooftui profile ran in full" in str(said[0])
    assert "step.raw.csv beside it has every launch" in str(said[0])
    assert said[0].fix == "open step.raw.csv"
