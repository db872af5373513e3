"""The one entry point the views use: ``load_run(paths) -> Run``.

Reads every report, builds the kernel table, picks ceilings per device, and adds
bounds and phases. Each step lives in its own module; this one only wires them.
Importing this package loads no pandas (the steps are imported when used), so
commands that import it for their options start fast (`rooftui --help`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.analysis.load_options import Ceilings, LoadOptions
from rooftui.analysis.ranks import is_communication, rank_of_report
from rooftui.errors import InputError, MissingMetricsError, RooftuiError
from rooftui.ingest.duplicates import counted_once
from rooftui.ingest.files import is_directory
from rooftui.ingest.sidecars import cut_short_path, cut_short_reason
from rooftui.model import metrics as m
from rooftui.model import pipe_activity
from rooftui.model.byte_sources import l2_counted_twice_note
from rooftui.model.ceilings import CeilingSet
from rooftui.notes import Note, prefixed

if TYPE_CHECKING:
    import pandas as pd

    from rooftui.analysis.ceilings import MissingRoof
    from rooftui.ingest.parallel import Progress, Reading
    from rooftui.ingest.report import RawReport


@dataclass
class Run:
    """Everything loaded from one or more reports."""

    kernels: pd.DataFrame  # the kernel table, one row per invocation
    ceilings_by_device: dict[str, CeilingSet]  # by the kernel table's ``device`` value
    reports: list[RawReport]
    notes: list[str] = field(default_factory=list)
    missing_metrics: list[str] = field(default_factory=list)
    missing_roofs: list[MissingRoof] = field(default_factory=list)
    fp16_rule: str = m.DEFAULT_FP16_RULE  # how FP16 CUDA-core FLOPs were counted

    @property
    def ceilings(self) -> CeilingSet:
        """The ceilings of the first device (the only one in most runs)."""
        return next(iter(self.ceilings_by_device.values()))

    @property
    def devices(self) -> list[str]:
        return list(self.ceilings_by_device)

    def ceilings_for(self, device: str) -> CeilingSet:
        """The ceilings of ``device`` (a value of the kernel table's ``device`` column,
        "" for a report that does not name its GPU)."""
        if device in self.ceilings_by_device:
            return self.ceilings_by_device[device]
        unnamed = [c for label, c in self.ceilings_by_device.items() if not c.device.name]
        if not device and len(unnamed) == 1:
            return unnamed[0]
        raise KeyError(f"no GPU {device!r} in this run (have: {', '.join(self.ceilings_by_device)})")

    def missing_roof_messages(self, device: str | None = None) -> list[str]:
        """One line per roof without a source ("no L2 roof: pass --ceilings or run rooftui
        measure"), for ``device`` or for every GPU (then prefixed by the GPU when there
        are several)."""
        several = device is None and len(self.ceilings_by_device) > 1
        return [
            f"{miss.device}: {miss.message}" if several else miss.message
            for miss in self.missing_roofs
            if device is None or miss.device == device
        ]


def load_run(
    paths: Sequence[str | Path],
    options: LoadOptions | None = None,
    *,
    progress: Progress | None = None,
    reading: Reading | None = None,
) -> Run:
    """Load reports into one kernel table with bounds and phases, as ``options`` say
    (``LoadOptions``: ceilings, phases, the GPU of exports that do not name it, the FP16
    rule, the cache; the defaults when None).

    Reports are read in parallel, from the report cache where it has them
    (``rooftui.ingest.cache``). ``progress`` is called with (reports done, reports in
    all, what) as each report is read, then once more with what = "analysing".
    ``reading``: the reading of ``paths`` already started with ``LoadOptions.start``
    (a command starts it before importing pandas, so the reader processes work
    meanwhile). A directory of one-metric runs is one report; files given one by one
    with disjoint metrics are joined (``ingest.metric_runs``).

    Raises InputError/MissingMetricsError/CeilingsError with a one-line message.
    """
    import pandas as pd

    from rooftui.analysis import zero_ai
    from rooftui.analysis.ceilings import choose_ceilings, missing_roofs
    from rooftui.analysis.deduplicated import add_counters_from
    from rooftui.analysis.phases import PhaseConfig, assign_phases
    from rooftui.analysis.roofline import add_bounds
    from rooftui.ingest.deduplicated import full_table_beside
    from rooftui.ingest.metric_runs import combine_runs
    from rooftui.model.columns import FLOAT_PIPELINES, LEVELS
    from rooftui.model.flop_states import partial_note
    from rooftui.model.frames import map_unique
    from rooftui.model.kernel_table import build_kernel_table, register_move_notes

    options = options or LoadOptions()
    ceilings, gpu, fp16_rule = options.ceilings, options.gpu, options.fp16_rule
    skip_invalid, find_measured = options.skip_invalid, options.find_measured
    if fp16_rule not in m.FP16_RULES:
        raise InputError(f"unknown FP16 rule {fp16_rule!r}", None, "use " + " or ".join(m.FP16_RULES))
    given_cc = _given_compute_capability(gpu, options.arch)
    if not paths:
        raise InputError("no report given", None, "pass one or more .ncu-rep or ncu CSV files")
    phases = PhaseConfig.from_options(options.phase_specs, infer=options.infer_phases)
    if ceilings is None:
        given_sets: list[CeilingSet] = []
    elif isinstance(ceilings, (str, Path, CeilingSet)):
        given_sets = [_as_ceiling_set(ceilings)]
    else:
        given_sets = [_as_ceiling_set(c) for c in ceilings]
    reading = reading or options.start(paths)
    from_dirs: list[RawReport] = []
    from_files: list[RawReport] = []
    for path, found in zip(paths, reading.result(progress)):  # a directory's reports, or one
        (from_dirs if is_directory(path) else from_files).extend(found)
    reports = from_dirs + combine_runs(from_files)
    frames: list[pd.DataFrame] = []
    reports, notes = counted_once(reports, apart=rank_of_report)  # given twice: rooftui.ingest.duplicates
    next_id = 0
    for report in reports:
        frame = report.kernels.copy()
        frame["report"] = report.path
        frame["id"] = frame["ncu_id"].astype(int) + next_id
        next_id = int(frame["id"].max()) + 1
        frame = _fill_gpu(frame, gpu, given_cc, report, notes)
        frame = _check_values(frame, report, skip_invalid, notes)
        frames.append(frame)
        notes += [prefixed(f"{report.path}: ", note) for note in report.notes]
        if (stopped := cut_short_reason(report.path)) is not None:  # rooftui profile's note beside it
            notes.append(
                Note(
                    "partial_report",
                    f"{report.path} is partial, {stopped} ({cut_short_path(report.path).name}):"
                    " it holds only the kernels profiled before the stop",
                    "profile it again",
                )
            )
        if (full := full_table_beside(report.path)) is not None:  # rooftui profile --dedup's subset
            notes.append(
                Note(
                    "dedup_subset",
                    f"{report.path} holds only the launches a deduplicated rooftui profile ran in full;"
                    f" {full.name} beside it has every launch, the others with their twin's counters",
                    f"open {full.name}",
                )
            )
    if progress:
        progress(len(paths), len(paths), "analysing")
    raw = pd.concat(frames, ignore_index=True, sort=False)
    raw["device"] = raw["device"].fillna("").astype(str)
    gpu_names = raw["device"].copy()
    raw["device"] = _device_labels(raw)
    kernels, derivation = build_kernel_table(raw, fp16_rule)
    kernels, deduplicated = add_counters_from(kernels, raw)  # rooftui profile --dedup's provenance
    notes += deduplicated
    kernels["rank"] = map_unique(kernels["report"], rank_of_report)  # once per report, not per launch
    kernels["communication"] = is_communication(kernels["name"])
    known_cc = next((cc for cc in kernels["cc"] if cc), "9.0")
    if kernels["time_s"].isna().all():
        raise MissingMetricsError(
            f"no {m.TIME}, nor elapsed cycles and clock ({m.SM_CYCLES}, {m.SM_CLOCK}), "
            "nor gpu__time_active in the report(s)",
            ", ".join(map(str, paths)),
            "collect them: " + ncu_command_hint(known_cc),
        )
    missing = sorted(derivation.missing - {m.TIME})
    if missing:
        collect = ncu_command_hint(known_cc)
        notes.append(
            Note(
                "missing_metrics",
                "missing metrics (their quantities are blank): "
                + ", ".join(missing)
                + ". Collect them with: "
                + collect,
                collect,
            )
        )
    derived_time = sorted(s for s in derivation.time_sources if s != m.TIME)
    if derived_time:
        notes.append(
            Note(
                "time_source",
                f"no {m.TIME} for some or all launches: time "
                + "; ".join(derived_time)
                + " (each launch's time_source says which)",
            )
        )
    if derivation.derived:
        notes.append(
            Note(
                "derived_from_rates",
                "derived from rates × elapsed cycles or time: " + "; ".join(sorted(derivation.derived)),
            )
        )
    if derivation.respelled:
        notes.append(
            Note(
                "respelled",
                "read under another spelling of the same count (metrics.SPELLINGS): "
                + "; ".join(sorted(derivation.respelled)),
            )
        )
    if derivation.byte_sources:
        notes.append(
            Note(
                "byte_sources",
                "bytes from what the report holds instead (a different "
                "quantity, named in each launch's bytes source): "
                + "; ".join(sorted(derivation.byte_sources)),
            )
        )
    if derivation.l2_counted_twice:
        notes.append(
            Note("l2_partitions", l2_counted_twice_note(derivation.l2_counted_twice), "rooftui profile")
        )
    if derivation.unknown_arch:
        notes.append(Note("unknown_arch", m.UNKNOWN_ARCH_NOTE, "--gpu NAME or --arch sm_XY"))
    if (partial := partial_note(kernels)) is not None:
        notes.append(Note("flops_partial", partial, "rooftui profile"))
    if derivation.tensor_issued_uncounted:
        issued = pipe_activity.TENSOR_ISSUED_NOTE.format(n=derivation.tensor_issued_uncounted)
        notes.append(Note("tensor_uncounted", issued))
    judged = zero_ai.judged_without_note(kernels)
    if judged:
        notes.append(Note("zero_ai_judged_without", judged))
    if kernels["fp16_approximate"].any() or fp16_rule != m.DEFAULT_FP16_RULE:
        notes.append(Note("fp16_approximate", m.fp16_note(fp16_rule)))
    notes.extend(Note("register_moves", note) for note in register_move_notes(kernels))

    by_device: dict[str, CeilingSet] = {}
    parts, missing_roof_list = [], []
    for (device, cc), index in kernels.groupby(["device", "cc"], sort=False).groups.items():
        label = device or f"unnamed GPU (cc {cc})"
        name = str(gpu_names.loc[index[0]])
        whole = len(index) == len(kernels)  # one GPU (most runs): every row, in order
        launches = raw if whole else raw.loc[index]
        given = _given_for(given_sets, name, _device_index(launches), label, notes)
        if given is not None and given.device.name and name and given.device.name != name:
            notes.append(
                Note("ceilings_device", f"ceilings file is for {given.device.name}, kernels ran on {name}")
            )
        chosen = choose_ceilings(launches, name, cc, given, find_measured, notes)
        by_device[label] = chosen
        device_kernels = kernels.copy() if whole else kernels.loc[index].copy()
        parts.append(add_bounds(device_kernels, chosen))
        used = device_kernels["pipeline"].unique()
        moved = [lv for lv in LEVELS if device_kernels[f"bytes_{lv}"].notna().any()]
        missing_roof_list += missing_roofs(label, chosen, [p for p in FLOAT_PIPELINES if p in used], moved)
    for miss in missing_roof_list:
        text = f"{miss.device}: {miss.message}" if len(by_device) > 1 else miss.message
        notes.append(Note("missing_roof", text, "pass --ceilings or run rooftui measure"))
    if len(by_device) > 1:
        notes.append(
            Note(
                "several_gpus",
                "several GPUs in the input: "
                + ", ".join(by_device)
                + "; each is analysed against its own ceilings",
            )
        )
    kernels = pd.concat(parts).sort_index()
    kernels = assign_phases(kernels, phases)
    if kernels["phase_inferred"].any():
        notes.append(
            Note(
                "phases_inferred",
                f"{int(kernels['phase_inferred'].sum())} launches without an "
                "NVTX phase had their phase inferred from launch order (--no-infer-phases turns "
                "this off)",
                "--no-infer-phases",
            )
        )
    return Run(kernels, by_device, reports, notes, missing, missing_roof_list, fp16_rule)


def _as_ceiling_set(ceilings: Ceilings) -> CeilingSet:
    from rooftui.ingest.ceilings import load_ceilings

    return ceilings if isinstance(ceilings, CeilingSet) else load_ceilings(ceilings)


def _device_labels(raw: pd.DataFrame) -> pd.Series:
    """The kernel table's ``device``: the GPU's name, and where one name covers several
    GPUs of one machine (ncu's device index), "NAME [device N]" so each keeps its roofs."""
    import pandas as pd

    names = raw["device"]
    if "device_index" not in raw:
        return names
    index = pd.to_numeric(raw["device_index"], errors="coerce")
    if index.nunique() < 2:  # one device index (most runs): no name covers several
        return names
    several = index.groupby(names).transform("nunique") > 1
    if not several.any():
        return names
    labelled = names + " [device " + index.astype("Int64").astype(str) + "]"
    return names.where(~several, labelled)


def _device_index(raw: pd.DataFrame) -> int | None:
    import pandas as pd

    if "device_index" not in raw:
        return None
    values = pd.to_numeric(raw["device_index"], errors="coerce").dropna().unique()
    return int(values[0]) if len(values) == 1 else None


def _given_for(
    given: list[CeilingSet], name: str, index: int | None, label: str, notes: list[str]
) -> CeilingSet | None:
    """The ceilings file for one GPU: the only one given, else the one measured on a GPU
    of that name (and device index, when several have the name)."""
    if len(given) <= 1:
        return given[0] if given else None
    same_name = [c for c in given if c.device.name == name]
    if len(same_name) > 1:
        same_name = [c for c in same_name if c.device.index == index]
    if len(same_name) == 1:
        return same_name[0]
    notes.append(
        Note(
            "ceilings_match",
            f"{label}: {'several' if same_name else 'none'} of the ceilings "
            "files given match this GPU; its roofs come from the next sources",
        )
    )
    return None


def ncu_command_hint(cc: str = "9.0") -> str:
    """The ncu command line that collects what rooftui needs."""
    names = ",".join(m.required_metrics(m.architecture_for(cc)))
    return (
        f"`rooftui profile -- APP` or `ncu --nvtx --clock-control none --metrics {names} "
        "-o REPORT APP` (`rooftui metrics --ncu-command` prints it for your GPU)"
    )


def _given_compute_capability(gpu: str | None, arch: str | None) -> str:
    """The compute capability --arch or --gpu names ("" for neither); they must agree."""
    from rooftui.model.gpus import compute_capability_of_arch, compute_capability_of_gpu

    from_arch = compute_capability_of_arch(arch) if arch else ""
    from_gpu = compute_capability_of_gpu(gpu) if gpu else ""
    if from_arch and from_gpu and from_arch != from_gpu:
        raise InputError(
            f"--gpu {gpu} is compute capability {from_gpu}, --arch {arch} is {from_arch}",
            None,
            "pass one of them, or two that agree",
        )
    return from_arch or from_gpu


_CC_MAJOR, _CC_MINOR = (
    "device__attribute_compute_capability_major",
    "device__attribute_compute_capability_minor",
)


def _fill_gpu(
    frame: pd.DataFrame, gpu: str | None, cc: str, report: RawReport, notes: list[str]
) -> pd.DataFrame:
    """CC where the export lacks the column: from its own device attributes, else its
    device name (NVIDIA's table in ``model.gpus``), else --gpu/--arch; the device
    name from --gpu where the export has none."""
    from rooftui.model.gpus import compute_capability_of_gpu

    own_cc = frame["cc"].fillna("").astype(str)
    if _CC_MAJOR in frame and _CC_MINOR in frame:
        major, minor = frame[_CC_MAJOR], frame[_CC_MINOR]
        from_attributes = major.astype("Int64").astype(str) + "." + minor.astype("Int64").astype(str)
        own_cc = own_cc.where((own_cc != "") | major.isna() | minor.isna(), from_attributes)
    named = frame["device"].fillna("").astype(str)
    for name in named[(own_cc == "") & (named != "")].unique():
        try:
            own_cc = own_cc.where((own_cc != "") | (named != name), compute_capability_of_gpu(name))
        except RooftuiError:
            pass  # a GPU not in the table: --gpu/--arch or blank Tensor FLOPs
    frame["cc"] = own_cc
    if cc:
        if ((own_cc != "") & (own_cc != cc)).any():
            notes.append(
                Note(
                    "gpu_given",
                    f"{report.path}: the export says compute capability "
                    f"{own_cc[own_cc != ''].iloc[0]}, which is kept over --gpu/--arch ({cc})",
                )
            )
        frame["cc"] = own_cc.where(own_cc != "", cc)
    if gpu:
        own = frame["device"].fillna("").astype(str)
        frame["device"] = own.where(own != "", gpu)
    return frame


def _check_values(frame: pd.DataFrame, report: RawReport, skip: bool, notes: list[str]) -> pd.DataFrame:
    """Refuse zero or non-finite durations and infinite counts, or drop them with --skip-invalid."""
    import numpy as np

    numeric = frame.select_dtypes(include="number")
    bad_time = None
    if m.TIME in frame:
        bad_time = ~np.isfinite(frame[m.TIME]) | (frame[m.TIME] <= 0)
    elif m.SM_CYCLES in frame and m.SM_CLOCK in frame:  # the paper's time, cycles / clock
        derived = frame[m.SM_CYCLES].astype(float) / frame[m.SM_CLOCK].astype(float)
        bad_time = ~np.isfinite(derived) | (derived <= 0)
    if bad_time is not None:  # a failed replay is kept, "not collected" (its reader said so)
        from rooftui.ingest.report import failed_launches

        bad_time &= ~failed_launches(report.kernels).reindex(frame.index, fill_value=False)
    bad_inf = np.isinf(numeric).any(axis=1)
    bad = bad_inf if bad_time is None else (bad_time | bad_inf)
    if not bad.any():
        return frame
    first = frame.loc[bad].iloc[0]
    timing = bad_time is not None and bad_time.any()
    what = "zero, missing or non-finite duration" if timing else "infinite values"
    if not skip:
        raise InputError(
            f"{int(bad.sum())} kernel(s) with {what} (first: ID {int(first['ncu_id'])}, "
            f"{str(first['kernel_name'])[:60]})",
            report.path,
            "re-profile them, or pass --skip-invalid to leave them out",
        )
    if bad.all():
        raise InputError(
            f"every kernel ({int(bad.sum())}) has {what}: none is left to show",
            report.path,
            "re-profile them; check the export is of a finished run",
        )
    notes.append(Note("left_out", f"{report.path}: left out {int(bad.sum())} kernel(s) with {what}"))
    return frame.loc[~bad]


def grouped_kernels(run: Run) -> pd.DataFrame:
    """``group_by_name`` of the run's kernels, with bounds against each device's ceilings."""
    import pandas as pd

    from rooftui.analysis.grouping import group_by_name
    from rooftui.analysis.roofline import add_bounds

    groups = group_by_name(run.kernels)
    parts = []
    for (device, cc), index in groups.groupby(["device", "cc"], sort=False).groups.items():
        label = device or f"unnamed GPU (cc {cc})"
        parts.append(add_bounds(groups.loc[index].copy(), run.ceilings_by_device[label]))
    return pd.concat(parts).sort_values("time_s", ascending=False, kind="stable") if parts else groups
