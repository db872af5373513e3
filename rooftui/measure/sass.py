"""Warp instructions of a one-loop kernel, counted from its SASS (``cuobjdump -sass``).

A kernel built as straight-line code, one loop, then straight-line code to its EXIT
issues, per warp and for ``trips`` ≥ 1 trips of the loop:

    before the loop + loop body × trips + after the loop up to the first EXIT

and at most the instructions past that EXIT besides (code only some warps run, such as
the clock stamp thread 0 writes). ``SassLoop`` holds those counts; ``warp_instructions``
gives the first sum (exact where nothing runs past the first EXIT) and the most the rest
can add. The loop is the span from a backward branch's target to the branch; the
``BRA`` to itself after the last EXIT is the padding every kernel ends with, never run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from rooftui.errors import GpuUnavailableError

_FUNCTION = re.compile(r"^\s*Function : (\S+)")
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+([^;]*);")
_BRANCH = re.compile(r"^(?:@!?U?P[T\d]+\s+)?BRA(?:\.\S+)?\s+(?:`\()?(0x[0-9a-f]+)")
_EXIT = re.compile(r"^(?:@!?U?P[T\d]+\s+)?EXIT\b")
_NOT_RUN = {"NOP"}  # padding after the final self-branch


class SassError(ValueError):
    """The listing does not hold the function, or its shape is not one loop."""


@dataclass(frozen=True)
class SassLoop:
    """One kernel's SASS, split around its only loop (counts of instructions)."""

    function: str
    before: int  # straight-line code before the loop, run once by every warp
    body: int  # the loop, backward branch included, run once per trip
    after: int  # after the loop up to and including the first EXIT, run by every warp
    past_exit: int  # after that EXIT (some warps only), the final self-branch excluded
    body_opcodes: dict[str, int]  # opcode (no modifiers) -> count in the loop

    def warp_instructions(self, warps: int, trips: int) -> tuple[int, int]:
        """(warp instructions every warp surely issues, the most the code past the
        first EXIT adds) for a launch of ``warps`` warps and ``trips`` ≥ 1 trips."""
        if trips < 1:
            raise ValueError("the count holds for one trip or more")
        return warps * (self.before + self.body * trips + self.after), warps * self.past_exit

    def to_dict(self) -> dict[str, object]:
        return {
            "function": self.function,
            "before_loop": self.before,
            "loop_body": self.body,
            "after_loop_to_exit": self.after,
            "past_first_exit": self.past_exit,
            "loop_opcodes": dict(self.body_opcodes),
        }


def functions(listing: str) -> dict[str, list[tuple[int, str]]]:
    """Function name -> its instructions as (address, text without the ';')."""
    found: dict[str, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    for line in listing.splitlines():
        name = _FUNCTION.match(line)
        if name:
            current = found.setdefault(name.group(1), [])
            continue
        instruction = _INSTRUCTION.match(line)
        if instruction and current is not None:
            current.append((int(instruction.group(1), 16), instruction.group(2).strip()))
    return found


def _opcode(text: str) -> str:
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def sass_loop(listing: str, function: str) -> SassLoop:
    """Split ``function``'s SASS around its one loop; SassError if it has none or several,
    or branches anywhere but the loop, a guard that jumps past it, and the final padding."""
    code = functions(listing).get(function)
    if not code:
        raise SassError(f"no function {function} in the SASS listing")
    branches = [
        (i, address, int(match.group(1), 16))
        for i, (address, text) in enumerate(code)
        if (match := _BRANCH.match(text))
    ]
    backward = [(i, address, target) for i, address, target in branches if target < address]
    if len(backward) != 1:
        raise SassError(f"{function}: {len(backward)} backward branches in its SASS, expected one loop")
    end, loop_branch, loop_start = backward[0]
    start = next((i for i, (address, _) in enumerate(code) if address == loop_start), None)
    if start is None:
        raise SassError(f"{function}: the loop branches to {loop_start:#x}, which holds no instruction")
    for i, address, target in branches:
        if (i, address, target) in backward or target == address:
            continue
        if not (i < start and target > loop_branch):
            raise SassError(f"{function}: a branch at {address:#x} other than the loop and its guard")
    exits = [i for i, (_, text) in enumerate(code) if _EXIT.match(text)]
    first_exit = next((i for i in exits if i > end), None)
    if first_exit is None or any(i < end for i in exits):
        raise SassError(f"{function}: no EXIT after the loop, or one before it")
    run_past = [
        text
        for address, text in code[first_exit + 1 :]
        if _opcode(text) not in _NOT_RUN and not _is_self_branch(address, text)
    ]
    body = [text for _, text in code[start : end + 1]]
    return SassLoop(
        function=function,
        before=start,
        body=len(body),
        after=first_exit - end,
        past_exit=len(run_past),
        body_opcodes=dict(sorted(Counter(_opcode(text) for text in body).items())),
    )


def _is_self_branch(address: int, text: str) -> bool:
    match = _BRANCH.match(text)
    return match is not None and int(match.group(1), 16) == address


def find_cuobjdump() -> str | None:
    """``cuobjdump`` on the PATH, else under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda."""
    found = shutil.which("cuobjdump")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "bin" / "cuobjdump").is_file():
            return str(Path(root) / "bin" / "cuobjdump")
    return None


def disassemble(cubin: Path) -> str:
    """``cuobjdump -sass`` of a cubin; GpuUnavailableError without cuobjdump or on failure."""
    tool = find_cuobjdump()
    if tool is None:
        raise GpuUnavailableError(
            "cuobjdump not found (on the PATH, $CUDA_HOME/bin or /usr/local/cuda/bin)",
            fix="install the CUDA toolkit, or put its bin folder on the PATH",
        )
    try:
        done = subprocess.run([tool, "-sass", str(cubin)], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise GpuUnavailableError(f"cuobjdump -sass {cubin.name} failed: {err}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise GpuUnavailableError(f"cuobjdump -sass {cubin.name} failed: {last}")
    return done.stdout
