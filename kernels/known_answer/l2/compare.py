"""Each L2 candidate counter of a raw-CSV export (``ncu --page raw --print-units base``)
beside the known answer (expected.py), as a ratio: 1.000 is exact.

    python3 compare.py EXPECTED.json RAW.csv [RAW.csv ...] > compare.txt

A counter whose name says ``op_read`` is compared with the sectors read, ``op_write``
with those written, any other with both; byte counters are divided by 32 first.
"""

from __future__ import annotations

import csv
import json
import re
import sys

SECTOR = 32
COUNTER = re.compile(r"^(lts__t_|l1tex__m_|derived__lts__|dram__bytes)")
TIME_UNITS = {
    "nsecond": 1e-9,
    "usecond": 1e-6,
    "msecond": 1e-3,
    "second": 1.0,
    "ns": 1e-9,
    "us": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
}
PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}  # ncu's scaled units (without --print-units base)


def kernel_name(full: str) -> str:
    return re.sub(r"^void ", "", full).split("(")[0].split("<")[0].strip()


def answer_for(row: dict, answers: list[dict]) -> dict | None:
    name, grid = kernel_name(row.get("Kernel Name", "")), row.get("launch__grid_size", "")
    matches = [a for a in answers if a["name"] == name]
    sized = [
        a
        for a in matches
        if a["grid"] is not None and grid and int(float(grid.replace(",", ""))) == a["grid"]
    ]
    return (sized or matches or [None])[0]


def expected_sectors(counter: str, answer: dict) -> int:
    if "op_read" in counter or "xbar2l1tex_read" in counter:
        return answer["l2_read_sectors"]
    if "op_write" in counter or "l1tex2xbar_write" in counter:
        return answer["l2_write_sectors"]
    return answer["l2_read_sectors"] + answer["l2_write_sectors"]


def number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def main(expected_path: str, raw_paths: list[str]) -> None:
    with open(expected_path, encoding="utf-8") as handle:
        answers = json.load(handle)["kernels"]
    for path in raw_paths:
        with open(path, encoding="utf-8", newline="") as handle:
            table = list(csv.reader(handle))
        header, units, rows = (
            table[0],
            dict(zip(table[0], table[1])),
            [dict(zip(table[0], r)) for r in table[2:]],
        )
        counters = [c for c in header if COUNTER.match(c) and c.endswith(".sum")]
        # ncu's roofline sections store rates only: count = rate x duration
        rates = [
            c for c in header if COUNTER.match(c) and c.endswith(".sum.per_second") and c[:-11] not in header
        ]
        seconds = TIME_UNITS.get(units.get("gpu__time_duration.sum", ""), 0.0)
        print(f"== {path}")
        for row in rows:
            answer = answer_for(row, answers)
            if answer is None:
                continue
            size = answer.get("footprint_bytes")
            print(
                f"-- {answer['name']} ({answer['source']}"
                + (f", {size // 2**20} MiB per array" if size else "")
                + f"): L1->L2 read {answer['l2_read_sectors']:,}"
                + f" + write {answer['l2_write_sectors']:,} sectors"
            )
            duration = number(row.get("gpu__time_duration.sum", "")) or 0.0
            for rate in rates:
                per_second = number(row.get(rate, ""))
                if per_second is not None and seconds:
                    scale = PREFIX.get(units.get(rate, "")[:1], 1.0)
                    row[rate[:-11]] = f"{per_second * scale * duration * seconds}"
            for counter in counters + [r[:-11] for r in rates]:
                value = number(row.get(counter, ""))
                if value is None:
                    continue
                sectors = value / SECTOR if "bytes" in counter else value
                want = expected_sectors(counter, answer)
                ratio = f"{sectors / want:7.3f}" if want else "    n/a"
                print(f"   {ratio}  {counter} = {value:,.0f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
