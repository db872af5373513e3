"""The known answers of instructions.cu, derived before any profile is taken.

    python3 expected.py launches.json instructions.sass > expected.json

Instructions come from the SASS (``cuobjdump -sass``): each kernel is straight-line
code, so every instruction up to its EXIT runs once per warp, on all 32 lanes.
Transactions come from each kernel's access pattern, written out here per thread as
in instructions.cu and counted over every thread of the launch:

- a global request is one warp-level load or store; its sectors are the distinct
  32-byte sectors its 32 lanes touch (cudaMalloc aligns to 256 bytes);
- a shared-memory request of 4-byte words takes as many wavefronts as the most
  distinct words any one of the 32 four-byte banks is asked for (one word read by
  several lanes is a broadcast, one wavefront);
- L2 sees each sector an L1 load misses and every stored sector (stores write
  through): L2 reads are fixed only where no two warps read the same sector, so the
  L1 cannot serve one warp from another's miss; elsewhere they are left null.

HBM sectors are not fixed by construction (what the L2 holds from before decides
them); ``*_unique`` gives the distinct sectors each kernel reads and writes, for a
bound, not an exact answer.
"""

from __future__ import annotations

import json
import re
import sys

import numpy as np

SECTOR = 32  # bytes [NCU, "Memory Workload Analysis": a sector is 32 bytes]
BANKS, BANK_BYTES = 32, 4  # shared memory on sm_70 and later [CUDA C++ Programming Guide]
BRANCHES = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "BSSY", "BSYNC", "BREAK", "WARPSYNC"}


def thread_indices(p: dict) -> dict[str, np.ndarray]:
    tid = np.arange(p["threads"], dtype=np.int64)
    local = tid % p["block"]
    return {"i": tid, "block": tid // p["block"], "t": local, "lane": local % 32, "warp": local // 32}


def accesses(name: str, p: dict, ix: dict[str, np.ndarray]) -> list[tuple[str, str, np.ndarray]]:
    """(space, op, byte offset per thread) of each memory instruction, as in instructions.cu."""
    e, i, t, lane, warp = p["element_bytes"], ix["i"], ix["t"], ix["lane"], ix["warp"]
    warps_per_block = p["block"] // 32
    store = ("global", "st", i * e)
    if name == "copy_unit":
        return [("global", "ld", i * e), store]
    if name == "copy_stride32":
        return [("global", "ld", i * p["stride"] * e), store]
    if name == "copy_broadcast":
        return [("global", "ld", ix["block"] * e), store]
    if name == "shared_unit":
        return [
            ("global", "ld", i * e),
            ("shared", "st", t * e),
            ("shared", "ld", ((t + 32) % p["block"]) * e),
            store,
        ]
    if name == "shared_conflict32":
        return [
            ("global", "ld", i * e),
            ("shared", "st", (lane * 32 + warp) * e),
            ("shared", "ld", (lane * 32 + (warp + 1) % warps_per_block) * e),
            store,
        ]
    if name == "int_chain":
        return [store]
    raise SystemExit(f"expected.py: no access pattern for kernel {name}")


def global_sectors(offsets: np.ndarray) -> tuple[int, int]:
    """(sectors summed over requests, distinct sectors over the launch); ``offsets`` holds
    the threads in order, so each row of 32 is one warp's request."""
    sector = np.sort((offsets // SECTOR).reshape(-1, 32), axis=1)
    per_request = 1 + (np.diff(sector, axis=1) != 0).sum(axis=1)
    return int(per_request.sum()), int(np.unique(sector).size)


def shared_wavefronts(offsets: np.ndarray) -> int:
    """Wavefronts summed over requests: per warp, the most distinct words in one bank."""
    word = (offsets // BANK_BYTES).reshape(-1, 32)
    span = int(word.max()) + 1
    key = np.sort((word % BANKS) * span + word, axis=1)  # by bank, then word
    distinct = np.ones(key.shape, dtype=bool)
    distinct[:, 1:] = np.diff(key, axis=1) != 0
    rows = np.broadcast_to(np.arange(key.shape[0])[:, None], key.shape)
    per_bank = np.bincount((rows * BANKS + key // span)[distinct], minlength=key.shape[0] * BANKS)
    return int(per_bank.reshape(-1, BANKS).max(axis=1).sum())


def sass_functions(text: str) -> dict[str, list[str]]:
    """Kernel name -> its SASS opcodes (with predicate guards), in order."""
    functions: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        found = re.search(r"Function : (\S+)", line)
        if found:
            mangled = found.group(1)
            short = re.match(r"_Z(\d+)", mangled)
            current = mangled[short.end() : short.end() + int(short.group(1))] if short else mangled
            functions[current] = []
            continue
        instruction = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+([^;]+);", line)
        if current and instruction:
            functions[current].append(instruction.group(1).strip())
    return functions


def executed_once(sass: list[str], name: str) -> list[str]:
    """The instructions up to EXIT; fails on a branch or a guard before it."""
    ran = []
    for instruction in sass:
        opcode = instruction.split()[0]
        if opcode.startswith("@"):
            raise SystemExit(f"expected.py: {name} has a predicated instruction: {instruction}")
        if opcode.split(".")[0] in BRANCHES:
            raise SystemExit(f"expected.py: {name} branches before EXIT: {instruction}")
        ran.append(instruction)
        if opcode == "EXIT":
            return ran
    raise SystemExit(f"expected.py: {name} has no EXIT")


def expected(p: dict, sass_text: str) -> dict:
    ix = thread_indices(p)
    warps = p["threads"] // 32
    functions = sass_functions(sass_text)
    kernels = []
    for name in p["kernels"]:
        ran = executed_once(functions[name], name)
        opcodes = [instruction.split()[0].split(".")[0] for instruction in ran]
        row: dict = {
            "name": name,
            "sass_per_warp": len(ran),
            "warp_instructions": len(ran) * warps,
            "thread_instructions": len(ran) * warps * 32,
            "thread_instructions_pred_on": len(ran) * warps * 32,
        }
        count = {"global": {"ld": 0, "st": 0}, "shared": {"ld": 0, "st": 0}}
        for space, op, offsets in accesses(name, p, ix):
            count[space][op] += 1
            key = f"{space}_{op}"
            row[f"{key}_requests"] = row.get(f"{key}_requests", 0) + warps
            if space == "global":
                sectors, unique = global_sectors(offsets)
                row[f"{key}_sectors"] = row.get(f"{key}_sectors", 0) + sectors
                row[f"{key}_sectors_unique"] = row.get(f"{key}_sectors_unique", 0) + unique
            else:
                row[f"{key}_wavefronts"] = row.get(f"{key}_wavefronts", 0) + shared_wavefronts(offsets)
        # The SASS must agree with the pattern: one LDG/STG/LDS/STS per access above.
        sass_count = {
            ("global", "ld"): opcodes.count("LDG"),
            ("global", "st"): opcodes.count("STG"),
            ("shared", "ld"): opcodes.count("LDS"),
            ("shared", "st"): opcodes.count("STS"),
        }
        for (space, op), n in sass_count.items():
            if n != count[space][op]:
                raise SystemExit(
                    f"expected.py: {name} has {n} {space} {op} in SASS, pattern says {count[space][op]}"
                )
        for key in (
            "global_ld_sectors",
            "global_st_sectors",
            "global_ld_requests",
            "global_st_requests",
            "shared_ld_wavefronts",
            "shared_st_wavefronts",
            "shared_ld_requests",
            "shared_st_requests",
            "global_ld_sectors_unique",
            "global_st_sectors_unique",
        ):
            row.setdefault(key, 0)
        row["l2_write_sectors"] = row["global_st_sectors"]
        no_reuse = row["global_ld_sectors"] == row["global_ld_sectors_unique"]
        row["l2_read_sectors"] = row["global_ld_sectors"] if no_reuse else None
        kernels.append(row)
    return {
        "device": p["device"],
        "cc": p["cc"],
        "parameters": {k: v for k, v in p.items() if k != "kernels"},
        "kernels": kernels,
    }


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: expected.py launches.json instructions.sass > expected.json")
    with open(sys.argv[1], encoding="utf-8") as handle:
        parameters = json.load(handle)
    with open(sys.argv[2], encoding="utf-8") as handle:
        sass = handle.read()
    json.dump(expected(parameters, sass), sys.stdout, indent=1)
    print()
