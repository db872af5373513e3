"""The sectors each known-answer kernel moves between L1 and L2, derived from how the
kernels are built, before any profile is taken:

    python3 expected.py L2_LAUNCHES [INSTRUCTIONS_EXPECTED] [KNOWN_ANSWER_EXPECTED]
        [SHARED_MEMORY_PARAMS] > expected.json

- l2.cu (launches.json): unit-stride 4-byte accesses, a warp's request is 4 whole
  sectors and no two warps share one; loads miss L1 (read once, or ld.global.cg), and
  every store is written through to L2 [NCU, "Memory Workload Analysis"]. read_sum
  stores one word per block (one sector per request).
- instructions.cu: its expected.json already gives ``l2_read_sectors`` (where no two
  warps read one sector) and ``l2_write_sectors``.
- known_answer.cu: the streaming kernels (daxpy, saxpy, add_mul, copy_f32) read each
  input element once and write each output once, unit stride: L1<->L2 bytes are their
  ``bytes_hbm_min`` (reads + writes); the split into reads and writes is per kernel.
- shared_memory.cu's tma_bulk: the bulk copy engine reads grid x rounds x chunk bytes;
  lane 0 of each block stores one word (one sector per block).
A 32-byte sector [NCU].
"""

from __future__ import annotations

import json
import sys

SECTOR = 32
# known_answer.cu's streaming kernels: (bytes read, bytes written) per element
STREAMING = {"daxpy": (16, 8), "saxpy": (8, 4), "add_mul": (8, 4), "copy_f32": (4, 4)}


def from_l2(p: dict) -> list[dict]:
    rows = []
    for n in p["sizes"]:
        grid, array_sectors = n // p["block"], n * p["element_bytes"] // SECTOR
        per_kernel = {
            "read_sum": (array_sectors, grid),
            "fill": (0, array_sectors),
            "copy": (array_sectors, array_sectors),
            "reread_cg": (p["reps"] * array_sectors, array_sectors),
        }
        for name, (read, write) in per_kernel.items():
            rows.append(_row(name, grid, read, write, "l2.cu", footprint_bytes=n * p["element_bytes"]))
    return rows


def from_instructions(expected: dict) -> list[dict]:
    grid = expected["parameters"]["grid"] if "parameters" in expected else None
    return [
        _row(k["name"], grid, k["l2_read_sectors"], k["l2_write_sectors"], "instructions.cu")
        for k in expected["kernels"]
        if k.get("l2_read_sectors") is not None
    ]


def from_known_answer(expected: dict) -> list[dict]:
    rows = []
    for k in expected["kernels"]:
        if k["name"] in STREAMING:
            read, write = STREAMING[k["name"]]
            elements = k["bytes_hbm_min"] // (read + write)
            rows.append(
                _row(
                    k["name"], None, elements * read // SECTOR, elements * write // SECTOR, "known_answer.cu"
                )
            )
    return rows


def from_shared_memory(params: dict) -> list[dict]:
    tma = params["tma_bulk"]
    read = tma["grid"] * tma["rounds"] * tma["chunk_bytes"] // SECTOR
    return [_row("tma_bulk", tma["grid"], read, tma["grid"], "shared_memory.cu")]


def _row(name: str, grid: int | None, read: int, write: int, source: str, **extra: int) -> dict:
    return {
        "name": name,
        "grid": grid,
        "l2_read_sectors": read,
        "l2_write_sectors": write,
        "source": source,
        **extra,
    }


def main(argv: list[str]) -> None:
    readers = (from_l2, from_instructions, from_known_answer, from_shared_memory)
    rows: list[dict] = []
    for path, reader in zip(argv, readers):
        if path and path != "-":
            with open(path, encoding="utf-8") as handle:
                rows += reader(json.load(handle))
    json.dump({"sector_bytes": SECTOR, "kernels": rows}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
