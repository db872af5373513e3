"""Metric sets whose replay passes gpu_check.sh counts: rooftui's list and parts of it.

    python3 tests/profile/pass_variants.py [CC]   ->  one "label<TAB>metric,metric,..." a line

Every name comes from rooftui.model.metrics; the variants only leave groups out or
swap a sub-metric (``.avg`` -> ``.sum``), to see which groups cost passes.
"""

from __future__ import annotations

import sys

from rooftui.model import metrics as m


def variants(cc: str = "9.0") -> dict[str, list[str]]:
    arch = m.architecture_for(cc)
    required = m.required_metrics(arch)
    peaks = set(m.peak_metrics(arch))
    extras = {m.UNIT_CLOCKS["lts"], m.UNIT_CLOCKS["dram"], m.DISPLAY_NAME}
    no_peaks = [name for name in required if name not in peaks]
    core = [name for name in no_peaks if name not in extras]
    sass = [metric for terms in m.CUDA_CORE_TERMS.values() for metric, _ in terms]
    tensor = [term.metric for term in arch.tensor]
    cycles = {m.SM_CYCLES, m.SM_CLOCK}
    by_pipeline = {term.pipeline: term.metric for term in arch.tensor}
    no_tensor = [n for n in core if n not in tensor]
    return {
        "required": required,
        "required_without_peaks": no_peaks,
        "core_time_flops_bytes_sm_clock": core,
        "core_without_sm_cycles": [n for n in core if n not in cycles],
        "core_sm_cycles_as_sum": [
            n.replace("sm__cycles_elapsed.avg", "sm__cycles_elapsed.sum") for n in core
        ],
        "core_without_time": [n for n in core if n != m.TIME],
        "time_only": [m.TIME],
        "cuda_core_flops_only": sass,
        "tensor_only": tensor,
        "bytes_only": list(m.BYTES.values()),
        "core_without_tensor": no_tensor,
        "tensor_fp16_only": [by_pipeline["tensor_fp16"]],
        "tensor_fp16_bf16": [by_pipeline["tensor_fp16"], by_pipeline["tensor_bf16"]],
        "core_with_tensor_fp16_only": no_tensor + [by_pipeline["tensor_fp16"]],
    }


if __name__ == "__main__":
    for label, names in variants(sys.argv[1] if len(sys.argv) > 1 else "9.0").items():
        print(f"{label}\t{','.join(names)}")
