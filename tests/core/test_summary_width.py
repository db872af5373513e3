"""`rooftui summary` as a table: piped, nothing is cut; at a given width, names are
cut but numbers never are."""

from __future__ import annotations

from rooftui.cli import main
from rooftui.sample import sample_paths


def sample_note_count(capsys) -> int:
    """How many notes ``summary`` gives the bundled sample (its JSON's own count)."""
    import json

    main(["summary", str(sample_paths()[0]), "--format", "json"])
    return len(json.loads(capsys.readouterr().out)["notes"])


HEAVIEST = (
    "sm80_xmma_wgrad_implicit_gemm_indexed_wo_smem_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize16x64x64"
    "_stage1_warpsize1x4x1_g1_tensor16x8x16_aligna4_alignc4_execute_kernel__5x_cudnn"
)


def heaviest_row(capsys, *options: str) -> str:
    main(["summary", str(sample_paths()[0]), "--top", "5", *options])
    lines = capsys.readouterr().out.splitlines()
    return next(line for line in lines if line.startswith("sm80_xmma"))


def test_piped_summary_fits_120_columns_and_names_the_kernel_by_what_it_is(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    main(["summary", str(sample_paths()[0]), "--top", "5"])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 120  # was 2,313 with a CUTLASS name
    name, *cells = next(line for line in out.splitlines() if line.startswith("sm80_xmma")).split()
    # arch, library, conv direction, data types and tile; launch details dropped
    assert name == "sm80_xmma_wgrad_f16f16_f16f32_f32_tilesize16x64x64"
    # ncu's launch ID, time, share, FLOP/s, AI L1/L2/HBM/SMEM (the sample has the SMEM
    # counters), pipe (2 words), phase, bound (2 words); launch 164's gpu__time_duration in
    # the report is 108,544 ns, 7.9% of the step's 1,378.5 µs
    assert len(cells) == 13 and cells[:3] == ["164", "109µs", "8%"]


def kernel_rows(capsys, width: int) -> list[tuple[str, list[str]]]:
    """The summary's kernel rows at ``--width width`` (0: no limit), each as (name as shown,
    its cells word by word, from ncu's launch ID on).

    The name is everything before the ID cell, which is right-aligned under the header's
    "ID" (names have spaces in them, so a row cannot simply be split)."""
    main(["summary", str(sample_paths()[0]), "--top", "30", "--width", str(width)])
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("kernel "))
    end_of_id = lines[header].index(" ID ") + len(" ID")
    rows = []
    for line in lines[header + 1 :]:
        if line.startswith(("ID: ncu's launch ID", "left out at ")):  # the lines under the table
            break
        assert len(line) <= (width or len(line)), line
        name, launch = line[:end_of_id].rsplit(maxsplit=1)
        rows.append((name.rstrip(), [launch, *line[end_of_id:].split()]))
    return rows


def test_at_80_columns_names_are_cut_and_numbers_stay_whole(capsys, monkeypatch, load_once):
    monkeypatch.delenv("COLUMNS", raising=False)
    whole = kernel_rows(capsys, 0)
    cut = kernel_rows(capsys, 80)
    assert len(cut) == len(whole) == 30
    # with the SMEM column the name has 10 columns at 80: the shortener keeps the conv direction
    assert whole[0][0] == HEAVIEST and cut[0][0] == "sm8…wgrad…"
    for (_, cells), (whole_name, whole_cells) in zip(cut, whole):
        assert cells == whole_cells and not any("…" in cell for cell in cells), whole_name

    # every row reads apart at 80 columns, and a name stands for one kernel (the same
    # table; its own test before 2026-12-02)
    kernels = load_once(sample_paths()[0]).kernels.set_index("ncu_id")["name"]
    full = [kernels[int(cells[0])] for _, cells in cut]
    assert len(set(full)) == 24  # 30 launches of 24 kernels
    shown = [(name, cells[0]) for name, cells in cut]
    assert len(set(shown)) == 30  # every row: a name and ncu's launch ID
    by_name = {}
    for (name, _), kernel in zip(shown, full):
        by_name.setdefault(name, set()).add(kernel)
    # two rows read the same name exactly when they are launches of the same kernel
    assert len(by_name) == 24 and all(len(kernels_of) == 1 for kernels_of in by_name.values())


def test_below_80_columns_the_last_columns_are_left_out_whole_and_named(capsys, monkeypatch):
    # rich narrowed every column to fit, cutting numbers ("39.2…", "0.7…", an ID "1…")
    monkeypatch.delenv("COLUMNS", raising=False)
    whole = kernel_rows(capsys, 0)
    for width, left_out in (
        (70, "phase, bound"),
        (60, "pipe, phase, bound"),
        (40, "L2, HBM, SMEM, pipe, phase, bound"),
    ):
        rows = kernel_rows(capsys, width)
        main(["summary", str(sample_paths()[0]), "--top", "30", "--width", str(width)])
        out = " ".join(capsys.readouterr().out.split())
        assert f"left out at {width} columns, too few for them whole: {left_out} (--width 0:" in out
        for (_, cells), (name, whole_cells) in zip(rows, whole):
            # each number shown is the whole one, in its own column (the first columns kept)
            assert not any("…" in cell for cell in cells), (width, name)
            assert cells == whole_cells[: len(cells)], (width, name)
    main(["summary", str(sample_paths()[0]), "--top", "30", "--width", "80"])
    assert "left out at" not in capsys.readouterr().out  # at 80 columns every column fits


def test_summary_without_a_report_shows_the_bundled_sample_and_says_so(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["summary", "--top", "3"]) in (0, None)
    captured = capsys.readouterr()
    assert "no report given: the bundled sample (deepcam_amp.raw-base.csv.xz" in captured.err
    assert "sm80_xmma_wgrad" in captured.out
    # against the ceilings measured on the sample's H200, as the explorer opens it
    assert "(h200_ceilings.json, measured" in captured.out.replace("\n", " ")


def test_notes_break_between_words_at_a_terminal_and_keep_one_line_each_to_a_log(capsys, monkeypatch):
    from rooftui.cli import notes

    monkeypatch.setenv("COLUMNS", "60")
    count = sample_note_count(capsys)
    assert count >= 3
    main(["summary", str(sample_paths()[0]), "--top", "1"])  # to a log (capsys is no terminal)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == count and all(line.startswith("note: ") for line in lines)
    assert max(len(line) for line in lines) > 60

    monkeypatch.setattr(notes, "is_terminal", lambda: True)
    main(["summary", str(sample_paths()[0]), "--top", "1"])
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert max(len(line) for line in lines) <= 60
    assert sum(line.startswith("note: ") for line in lines) == count
    words = "".join(lines).split()
    assert "approximate:" in words and "SourceCounters" in err and "HFMA2.MMA" in words
