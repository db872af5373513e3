"""Which roofs a run gets without --ceilings, where each came from, and what is said
when a roof is missing or a report's peak cannot be reached (issue 11, items 1-3, 6)."""

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.ingest import read_report
from rooftui.ingest.ceilings import load_ceilings
from rooftui.ingest.measured_ceilings import find_bundled, find_saved, save_measured, saved_path
from rooftui.model.columns import LEVELS
from rooftui.notes import kind_of
from rooftui.sample import sample_ceilings
from tests.conftest import DEEPCAM, KNOWN, SAMPLES, run_cli, the_sample

AMP = DEEPCAM / "deepcam_amp.raw-base.csv.xz"
BASE = KNOWN / "known_answer.raw-base.csv"
MEASURED = SAMPLES / "ceilings" / "h200.json"
H200_ROOFS = {
    "l1",
    "smem",
    "l2",
    "hbm",
    "fp64",
    "fp32",
    "fp16",
    "bf16",
    "tensor_fp16",
    "tensor_bf16",
    "tensor_tf32",
    "tensor_fp8",
    "tensor_int8",
    "tensor_fp64",
}


def measured_file() -> dict:
    return json.loads(MEASURED.read_text())


def when_measured(doc: dict) -> str:
    """The first clock reading of the measure run, as the ISO time rooftui shows."""
    stamp = doc["measurement"]["clocks_reported"][0]["time"]
    return datetime.fromtimestamp(stamp, timezone.utc).isoformat(timespec="seconds")


def roof_key(ceiling) -> str:
    return ceiling.level if ceiling.kind == "bandwidth" else ceiling.precision


def test_the_bundled_h200_ceilings_are_the_measured_file_read_as_package_data():
    bundled = find_bundled("NVIDIA H200", "9.0")
    assert bundled is not None and bundled.origin == "rooftui/data/ceilings/nvidia-h200_cc9.0.json"
    doc = measured_file()
    assert {roof_key(c): c.value for c in bundled.ceilings} == {
        c.get("level") or c["precision"]: c["value"] for c in doc["ceilings"]
    }
    assert bundled.measured_at == when_measured(doc) == "2026-11-29T15:34:42+00:00"
    assert find_bundled("NVIDIA H100 80GB HBM3", "9.0") is None
    assert find_bundled("NVIDIA H200", "10.0") is None  # keyed by compute capability too


def test_deepcam_without_ceilings_uses_the_bundled_h200_measurement_labelled_so(load_once):
    run = load_once(AMP)
    doc = measured_file()
    assert {roof_key(c) for c in run.ceilings.ceilings} == H200_ROOFS
    for ceiling in run.ceilings.ceilings:
        assert (ceiling.source, ceiling.method) == ("bundled", "empirical"), ceiling
        assert ceiling.measured_at == when_measured(doc)
    assert run.missing_roofs == []
    assert run.ceilings.bandwidth("l2").value == pytest.approx(8.984296570102639e12, rel=1e-12)


def test_deepcam_without_ceilings_binds_kernels_exactly_as_the_bundled_sample(load_once):
    ours = load_once(AMP).kernels
    sample = load_once(the_sample(), ceilings=sample_ceilings()).kernels
    columns = [
        "bound",
        "roof_fraction",
        *(f"bound_{lvl}" for lvl in LEVELS),
        *(f"roof_{lvl}" for lvl in LEVELS),
    ]
    pd.testing.assert_frame_equal(ours[columns], sample[columns])
    assert (ours["bound"] != "").all()
    # Recounted from the report's columns (the largest of bytes / roof per level and FLOPs /
    # roof per pipeline, the bundled roofs). While L2 bytes were lts__t_bytes, which counts
    # far-partition lookups twice (docs/l2-bytes.md), 171 of the 179 were L2-bound and this
    # line checked "most kernels L2-bound"; with L2 bytes counted once, HBM binds most.
    assert ours["bound"].value_counts().to_dict() == {
        "HBM": 100,
        "L2": 72,
        "L1": 4,
        "Tensor FP16": 2,
        "FP32": 1,
    }


def test_summary_says_the_roofs_are_bundled_and_when_they_were_measured():
    result = run_cli("summary", AMP, "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {c["source"] for c in doc["ceilings"]} == {"bundled"}
    assert {c["measured_at"] for c in doc["ceilings"]} == {"2026-11-29T15:34:42+00:00"}
    assert doc["missing_roofs"] == []
    text = run_cli("summary", AMP, "--top", "3", env={"COLUMNS": "200"}).stdout
    assert "(bundled with rooftui, measured 2026-11-29)" in text


def fake_saved(hbm: float, measured_at: str = "2026-12-01T08:00:00+00:00") -> dict:
    """What `rooftui measure` would have saved: only an HBM and an FP64 roof."""
    return {
        "schema": "rooftui.ceilings/1",
        "device": {"name": "NVIDIA H200", "cc": "9.0"},
        "source": "rooftui measure 0.1.0",
        "measured_at": measured_at,
        "ceilings": [
            {"name": "HBM", "kind": "bandwidth", "level": "hbm", "value": hbm, "method": "empirical"},
            {
                "name": "FP64 FMA",
                "kind": "compute",
                "precision": "fp64",
                "value": 3.0e13,
                "method": "empirical",
            },
        ],
    }


def test_after_a_measure_save_the_same_load_picks_the_saved_file_up():
    path = save_measured(fake_saved(hbm=4.0e12))
    assert path == saved_path("NVIDIA H200", "9.0")
    assert path.parent == Path(os.environ["XDG_DATA_HOME"]) / "rooftui" / "ceilings"
    run = load_run([AMP])
    hbm = run.ceilings.bandwidth("hbm")
    assert (hbm.value, hbm.source, hbm.measured_at) == (4.0e12, "saved", "2026-12-01T08:00:00+00:00")
    assert hbm.origin == str(path)
    assert run.ceilings.compute("fp64").source == "saved"
    assert run.ceilings.bandwidth("l2").source == "bundled"  # not in the saved file
    memory_side = run.kernels[run.kernels["bound_hbm"] == "memory"]
    assert len(memory_side) > 100
    assert memory_side["roof_hbm"].to_numpy() == pytest.approx(memory_side["ai_hbm"].to_numpy() * 4.0e12)
    doc = json.loads(run_cli("summary", AMP, "--format", "json").stdout)
    assert next(c for c in doc["ceilings"] if c.get("level") == "hbm")["source"] == "saved"


def test_a_ceilings_file_given_beats_the_saved_one(tmp_path):
    save_measured(fake_saved(hbm=4.0e12))
    given = tmp_path / "mine.json"
    given.write_text(json.dumps(fake_saved(hbm=3.0e12)))
    hbm = load_run([AMP], LoadOptions(ceilings=given)).ceilings.bandwidth("hbm")
    assert (hbm.value, hbm.source, hbm.origin) == (3.0e12, "file", str(given))


def test_a_broken_saved_file_is_said_and_skipped():
    path = saved_path("NVIDIA H200", "9.0")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    run = load_run([AMP])
    assert run.ceilings.bandwidth("hbm").source == "bundled"
    assert any(str(path) in note and "skipped the saved ceilings" in note for note in run.notes)


def test_measure_saves_its_file_in_the_user_data_dir_and_still_writes_out(tmp_path, monkeypatch):
    from rooftui.cli.measure import measure
    from rooftui.measure import runner

    measured = load_ceilings(MEASURED)
    record = {**measured_file()["measurement"], "seconds": 20.2, "warnings": []}
    monkeypatch.setattr(runner, "measure_device", lambda *args, **kwargs: (measured, record))
    out = tmp_path / "out.json"
    result = CliRunner().invoke(measure, ["--out", str(out)])
    assert result.exit_code == 0, result.output
    saved = find_saved("NVIDIA H200", "9.0")
    assert saved == load_ceilings(out) == measured
    assert saved.measured_at == "2026-11-29T15:34:42+00:00"
    assert json.loads(out.read_text())["measured_at"] == "2026-11-29T15:34:42+00:00"
    assert str(saved_path("NVIDIA H200", "9.0")) in result.output.replace("\n", "")  # rich wraps


# --- report peaks no kernel can reach, held against rooftui measure on the H200 -----


def test_report_peaks_compared_with_the_measured_h200(load_once):
    """ncu's peaks × clocks (the known-answer report with rooftui's metrics, its --set
    roofline twin) against sample_data/ceilings/h200.json: the tag-stage byte peaks
    are far above what loads reach; FP64/FP32 and HBM are within a few percent."""
    measured = load_ceilings(MEASURED)
    raw = read_report(BASE).kernels
    roofline = read_report(KNOWN / "known_answer_roofline.raw.csv").kernels

    def median(frame, column):
        return float(frame[column].astype(float).median())

    assert median(raw, "l1tex__t_bytes.sum.peak_sustained") / 132 == 512  # B/cycle/SM
    sm_clock, l2_clock = (median(raw, f"{unit}__cycles_elapsed.avg.per_second") for unit in ("sm", "lts"))
    l1_peak = median(raw, "l1tex__t_bytes.sum.peak_sustained") * sm_clock
    assert measured.bandwidth("l1").value / l1_peak == pytest.approx(0.24, abs=0.01)
    # ~123 B/cycle/SM streamed, against the 128 the L1 data path delivers
    per_sm_cycle = measured.bandwidth("l1").value / 132 / measured.bandwidth("l1").extra["clock_hz"]
    assert 120 < per_sm_cycle <= 128
    assert median(raw, "lts__t_bytes.sum.peak_sustained") == 9024  # B per L2 cycle, all slices
    l2_peak = median(raw, "lts__t_bytes.sum.peak_sustained") * l2_clock
    assert l2_peak == pytest.approx(15.4e12, rel=0.005)
    assert measured.bandwidth("l2").value / l2_peak == pytest.approx(0.58, abs=0.01)
    hbm_peak = median(roofline, "dram__bytes.sum.peak_sustained") * median(
        roofline, "dram__cycles_elapsed.avg.per_second"
    )
    assert measured.bandwidth("hbm").value / hbm_peak == pytest.approx(0.947, abs=0.01)
    peaks = load_once(BASE, find_measured=False).ceilings
    assert peaks.bandwidth("l2").value == pytest.approx(l2_peak)
    for precision in ("fp64", "fp32"):
        assert peaks.compute(precision).method == "report"
        assert peaks.compute(precision).value == pytest.approx(measured.compute(precision).value, rel=0.02)


def test_an_unreachable_report_peak_is_marked_when_it_is_the_only_source(load_once):
    alone = load_once(BASE, find_measured=False).ceilings
    assert alone.bandwidth("l1").name == "L1 (report peak, unreachable)"
    assert "512 B/cycle/SM" in alone.bandwidth("l1").caveat
    assert alone.bandwidth("l2").name == "L2 (report peak, unreachable)"
    assert alone.bandwidth("hbm").caveat == ""
    measured = load_run([BASE]).ceilings  # an empirical roof exists: the peaks are not used
    assert {measured.bandwidth(level).source for level in LEVELS} == {"bundled"}


# --- a missing roof is said, and a bound at it is unknown -----------------------------


# A report with no L2 clock has no L2 peak; ncu offers no shared-memory peak at all.
NO_L2 = "no L2 roof: pass --ceilings or run rooftui measure"
NO_SMEM = "no SMEM roof: pass --ceilings or run rooftui measure"


def test_a_missing_l2_roof_is_said_and_no_kernel_is_bound_elsewhere_silently(tmp_path):
    run = load_run([without_l2_clock(tmp_path, AMP)], LoadOptions(find_measured=False))
    assert sorted(m.message for m in run.missing_roofs) == [NO_L2, NO_SMEM]
    assert sorted(run.missing_roof_messages()) == [NO_L2, NO_SMEM]
    missing_roof = [note for note in run.notes if kind_of(note) == "missing_roof"]
    assert sorted(missing_roof) == [NO_L2, NO_SMEM]
    kernels = run.kernels
    moved_l2 = kernels["bytes_l2"] > 0
    assert moved_l2.all()
    assert (kernels["bound"] == "").all() and kernels["roof_fraction"].isna().all()
    assert (kernels["bound_l2"] == "").all()
    with_flops = kernels["ai_hbm"].notna() & ~kernels["zero_ai"].astype(bool)
    assert (kernels.loc[with_flops, "bound_hbm"] != "").all()  # the other levels keep theirs


def other_gpu_copy(tmp_path, name: str, report=BASE, drop=()):
    """A raw CSV as if profiled on another GPU model (one rooftui ships no ceilings for),
    without the columns ``drop`` names."""
    frame = pd.read_csv(report, dtype=str, keep_default_na=False).drop(columns=list(drop))
    frame.loc[frame["ID"] != "", "device__attribute_display_name"] = name  # not the units row
    path = tmp_path / f"{name.replace(' ', '_')}.raw-base.csv"
    frame.to_csv(path, index=False)
    return path


def without_l2_clock(tmp_path, report):
    """``report`` as an H200 report profiled without the L2 clock (as rooftui's list was
    before it asked for lts__cycles_elapsed.avg.per_second): no L2 peak can be derived."""
    return other_gpu_copy(tmp_path, "NVIDIA H200", report, drop=["lts__cycles_elapsed.avg.per_second"])


def test_summary_text_and_json_say_each_missing_roof(tmp_path):
    # without its L2 clock the report gives no L2 peak, nor any SMEM peak; an H100 has no
    # bundled ceilings
    path = other_gpu_copy(tmp_path, "NVIDIA H100 80GB HBM3", AMP, drop=["lts__cycles_elapsed.avg.per_second"])
    text = run_cli("summary", path, env={"COLUMNS": "200"})
    assert text.returncode == 0, text.stderr
    for message in (NO_L2, NO_SMEM):
        assert message in text.stdout and message in text.stderr
    assert "L1 (report peak, unreachable): ncu's l1tex__t_bytes peak" in text.stdout
    doc = json.loads(run_cli("summary", path, "--format", "json").stdout)
    device = "NVIDIA H100 80GB HBM3"
    assert sorted(doc["missing_roofs"], key=lambda m: m["roof"]) == [
        {"device": device, "kind": "bandwidth", "roof": "l2", "message": NO_L2},
        {"device": device, "kind": "bandwidth", "roof": "smem", "message": NO_SMEM},
    ]
    assert {k["bound"] for k in doc["kernels"]} == {""}
    l1 = next(c for c in doc["ceilings"] if c.get("level") == "l1")
    assert (l1["source"], l1["name"]) == ("report", "L1 (report peak, unreachable)")


def quick(document: dict, is_quick: bool = True) -> dict:
    return {**document, "measurement": {"quick": is_quick}}


def test_a_quick_measurement_never_replaces_a_full_one():
    full = save_measured(quick(fake_saved(hbm=4.5e12), is_quick=False))
    assert full is not None
    assert save_measured(quick(fake_saved(hbm=3.9e12))) is None  # kept, nothing written
    assert load_run([AMP]).ceilings.bandwidth("hbm").value == 4.5e12


def test_a_quick_measurement_replaces_a_quick_one_and_is_replaced_by_a_full_one():
    save_measured(quick(fake_saved(hbm=3.9e12)))
    assert save_measured(quick(fake_saved(hbm=4.0e12))) is not None
    assert load_run([AMP]).ceilings.bandwidth("hbm").value == 4.0e12
    assert save_measured(quick(fake_saved(hbm=4.5e12), is_quick=False)) is not None
    assert load_run([AMP]).ceilings.bandwidth("hbm").value == 4.5e12
