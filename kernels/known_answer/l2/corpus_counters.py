"""Which L2 counters public ``.ncu-rep`` reports carry, and what they say together: per
report, the GPU, the ncu set's L2 counters present, and summed over its launches the
sectors L1 requested (``lts__t_sectors_srcunit_tex``), those the other L2 partition
requested (``..._srcunit_ltcfabric``) and the L2 total (``lts__t_sectors``, or
``lts__t_bytes`` / 32). Needs NVIDIA's ``ncu_report`` (PyPI ncu-report).

    python kernels/known_answer/l2/corpus_counters.py REPORT.ncu-rep ... > counters.txt
"""

from __future__ import annotations

import sys

import ncu_report

SECTOR = 32
SHOWN = (
    "lts__t_bytes.sum",
    "lts__t_sectors.sum",
    "lts__t_sectors_srcunit_tex.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum",
    "lts__t_sectors_srcnode_gpc.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "derived__lts__lts2xbar_bytes.sum",
)


def summary(path: str) -> str:
    context = ncu_report.load_report(path)
    totals: dict[str, float] = {}
    device, launches = "", 0
    for r in range(context.num_ranges()):
        span = context.range_by_idx(r)
        for a in range(span.num_actions()):
            action, launches = span.action_by_idx(a), launches + 1
            name = action.metric_by_name("device__attribute_display_name")
            device = device or (name.as_string() if name is not None else "")
            for metric in SHOWN:
                found = action.metric_by_name(metric)
                if found is not None and found.as_double() == found.as_double():
                    totals[metric] = totals.get(metric, 0.0) + found.as_double()
    tex = totals.get("lts__t_sectors_srcunit_tex.sum")
    total = totals.get("lts__t_sectors.sum", totals.get("lts__t_bytes.sum", float("nan")) / SECTOR)
    fabric = totals.get("lts__t_sectors_srcunit_ltcfabric.sum")
    ratios = ""
    if tex:
        ratios = f"  L2 total / from L1 = {total / tex:.3f}"
        ratios += f", fabric / from L1 = {fabric / tex:.3f}" if fabric is not None else ""
    present = ", ".join(m.removesuffix(".sum") for m in SHOWN if m in totals) or "no L2 counter"
    return f"{path}\n  {device}, {launches} launches: {present}{ratios}"


if __name__ == "__main__":
    for report in sys.argv[1:]:
        print(summary(report))
