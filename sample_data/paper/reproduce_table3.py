"""Reproduce the paper's Table III and the authors' per-kernel numbers from their own data.

    git clone https://github.com/cyanguwa/DeepLearningProfiling
    python sample_data/paper/reproduce_table3.py DeepLearningProfiling

Fetches nothing: it reads a local clone of the paper's repository (its data carry no
licence, so none is copied into rooftui). For each configuration it loads the
one-metric-per-run directories with ``--gpu V100 --fp16-rule paper``, prints Table III
with zero-AI counted per kernel name (as the authors did) and per launch, checks the
published counts, and compares every kernel's FP32, FP16, Tensor FLOPs and L1/L2/HBM
bytes with the authors' post-processed ``*/CSVs/*.csv``. Exit status 0 when all agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from rooftui.analysis import load_run
from rooftui.analysis.grouping import group_by_name
from rooftui.analysis.load_options import LoadOptions
from rooftui.analysis.summary import zero_ai_table

# (configuration, its directories, the authors' CSV per directory, published zero-AI of launches)
CONFIGURATIONS = (
    (
        "PyTorch fp32-O1-Adam",
        "mlperf-deepcam/PT-fp32-O1-Adam-{}-*",
        ("fw", "bw", "opt"),
        "mlperf-deepcam/CSVs/fp32-O1-Adam-{}.csv",
        (1046, 5081),
    ),
    (
        "TensorFlow fp16-batch2-fwbw-amp",
        "climate-seg-benchmark/TF-fp16-batch2-{}-amp-*",
        ("fwbw",),
        "climate-seg-benchmark/CSVs/fp16-batch2-{}-amp.csv",
        (2137, 5129),
    ),
)
_SASS = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
COMPARED = ("launches", "flops_fp32", "flops_fp16", "flops_tensor_fp16", "bytes_l1", "bytes_l2", "bytes_hbm")


def authors_columns(table: pd.DataFrame) -> pd.DataFrame:
    """The authors' CSV in rooftui's columns, by their formulas (postprocess-PT.ipynb)."""

    def counter(op: str) -> pd.Series:
        return table[_SASS.format(op)]

    return pd.DataFrame(
        {
            "launches": table["Count"],
            "flops_fp32": counter("fadd") + counter("fmul") + 2 * counter("ffma"),
            "flops_fp16": counter("hadd") + counter("hmul") + 2 * counter("hfma"),
            "flops_tensor_fp16": 512 * table["sm__inst_executed_pipe_tensor.sum"],
            "bytes_l1": table["l1tex__t_bytes.sum"],
            "bytes_l2": table["lts__t_bytes.sum"],
            "bytes_hbm": table["dram__bytes.sum"],
        }
    )


def compare_with_authors(directory: Path, authors_csv: Path) -> list[str]:
    """Every kernel name whose numbers differ from the authors' CSV, as text lines."""
    run = load_run([directory], LoadOptions(gpu="V100", fp16_rule="paper"))
    ours = run.kernels.groupby("demangled")[list(COMPARED)].sum()
    theirs = authors_columns(pd.read_csv(authors_csv).set_index("Kernel Name"))
    problems = [f"{name[:60]}: only in rooftui" for name in ours.index.difference(theirs.index)]
    problems += [f"{name[:60]}: only in the authors' CSV" for name in theirs.index.difference(ours.index)]
    for name in ours.index.intersection(theirs.index):
        for column in COMPARED:
            if ours.loc[name, column] != theirs.loc[name, column]:
                problems.append(
                    f"{name[:60]}: {column} {ours.loc[name, column]} != {theirs.loc[name, column]}"
                )
    return problems


def table_iii(directories: list[Path]) -> tuple[pd.Series, pd.Series | None]:
    """The overall Table III row, zero-AI per kernel name and per launch (None where
    the runs could only be joined per kernel name)."""
    run = load_run(directories, LoadOptions(gpu="V100", fp16_rule="paper"))
    per_launch = None if (run.kernels["launches"] > 1).any() else zero_ai_table(run.kernels).iloc[-1]
    return zero_ai_table(run.kernels, group_by_name(run.kernels)).iloc[-1], per_launch


def main(clone: Path) -> int:
    ok = True
    for title, pattern, parts, csv_pattern, published in CONFIGURATIONS:
        directories = [d for part in parts for d in sorted(clone.glob(pattern.format(part)))]
        if len(directories) != len(parts):
            print(f"{title}: directories {pattern} not found under {clone}")
            return 2
        by_name, by_launch = table_iii(directories)
        found = (int(by_name["zero_ai"]), int(by_name["kernels"]))
        ok &= found == published
        print(
            f"{title}: {found[0]} zero-AI of {found[1]} launches per kernel name "
            f"(published {published[0]} of {published[1]}); per launch "
            + (
                "not available (the runs launch kernels in different orders)"
                if by_launch is None
                else f"{int(by_launch['zero_ai'])} of {int(by_launch['kernels'])}"
            )
        )
        for directory, part in zip(directories, parts):
            problems = compare_with_authors(directory, clone / csv_pattern.format(part))
            ok &= not problems
            print(
                f"  {directory.name}: "
                + (
                    "every kernel's FP32, FP16, Tensor FLOPs and L1/L2/HBM bytes equal the authors' CSV"
                    if not problems
                    else f"{len(problems)} differences"
                )
            )
            for line in problems[:20]:
                print("    " + line)
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
