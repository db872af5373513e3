"""Make the two PyTorch profiler traces that `rooftui timeline` is tested on.

    python3 sample_data/timeline/make_traces.py OUTDIR

writes OUTDIR/naive.json.gz and OUTDIR/fixed.json.gz (Kineto chrome-trace JSON,
gzipped). Both train the same small 3D conv net on random 64³ crops, with random
cube rotations, of a synthetic 4-feature 160³ "cosmology" volume — a miniature of
the pipeline in the issue (256³ crops of a 1024³ volume):

naive  crops and rotates with NumPy on the training thread, into pageable host
       memory, copies with a synchronous ``.to("cuda")``, and steps an fp16 AMP
       ``GradScaler`` with a plain (non-fused, non-foreach) Adam, whose
       inf/NaN check is a ``.item()`` on a device scalar every step: a blocking
       device→host copy into pageable memory. The per-parameter Adam kernels are
       a launch-bound stretch.
fixed  prefetch threads crop and rotate into pinned buffers a few batches ahead,
       the main thread copies them with ``non_blocking=True`` on a side stream
       one step ahead, and a fused Adam takes the scaler's inf check on the
       device (no ``.item()``); the loss is summed on the device and read once
       at the end.

Each run is traced for a few steps with ``torch.profiler`` (CPU + CUDA,
``record_function`` ranges "data_loading", "h2d_copy", "forward", "backward",
"optimizer"; the fixed run's workers mark "preprocess", which the profiler may
leave out, as it records only the thread that started it). Needs a CUDA GPU for
the real traces; without one it runs on the CPU so the script itself can be
checked, and the traces hold no GPU events.
Takes well under a minute on one H200.
"""

from __future__ import annotations

import gzip
import queue
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

HAS_CUDA = torch.cuda.is_available()
DEVICE = torch.device("cuda" if HAS_CUDA else "cpu")

FEATURES = 4  # input channels of the volume (density, velocity, ...)
VOLUME_SIDE = 160
CROP_SIDE = 64
BATCH = 4
WARMUP_ITERATIONS = 3  # before the profiler starts: cuDNN autotuning, allocator warm-up
PROFILE_SCHEDULE = dict(wait=1, warmup=1, active=4, repeat=1)
# Cropping and rotating one batch takes longer on a CPU core than the GPU step, so
# the fixed pipeline spreads it over a few threads (NumPy copies release the GIL).
PREFETCH_WORKERS = 3
PROFILED_ITERATIONS = sum(PROFILE_SCHEDULE[k] for k in ("wait", "warmup", "active"))

# The 24 rotations of a cube: pick which axis points "up" (6 ways) and spin around
# it (4 ways). Axes 1..3 of a (C, D, H, W) crop are spatial.
_UP_AXIS_TURNS = [(None, 0), ((1, 2), 1), ((1, 2), 2), ((1, 2), 3), ((1, 3), 1), ((1, 3), 3)]


def make_volume(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A smooth-ish random input field (C, N, N, N) and a target field (1, N, N, N)."""
    shape = (FEATURES, VOLUME_SIDE, VOLUME_SIDE, VOLUME_SIDE)
    inputs = rng.standard_normal(shape, dtype=np.float32)
    # A cheap smoothing so neighbouring voxels correlate, as a density field does.
    for axis in (1, 2, 3):
        inputs += np.roll(inputs, 1, axis=axis)
    target = inputs[:1] * 0.5 + inputs[1:2] ** 2
    return inputs, np.ascontiguousarray(target)


def random_rotation(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One of the 24 cube rotations of a (C, D, H, W) crop, as NumPy views."""
    axes, turns = _UP_AXIS_TURNS[rng.integers(len(_UP_AXIS_TURNS))]
    if axes is not None:
        crop = np.rot90(crop, turns, axes=axes)
    return np.rot90(crop, int(rng.integers(4)), axes=(2, 3))


def crop_batch(
    volume: np.ndarray,
    target: np.ndarray,
    rng: np.random.Generator,
    out_x: np.ndarray | None = None,
    out_y: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """BATCH random rotated crops of the input and the matching target crops."""
    if out_x is None:
        out_x = np.empty((BATCH, FEATURES, CROP_SIDE, CROP_SIDE, CROP_SIDE), np.float32)
        out_y = np.empty((BATCH, 1, CROP_SIDE, CROP_SIDE, CROP_SIDE), np.float32)
    for i in range(BATCH):
        d, h, w = rng.integers(0, VOLUME_SIDE - CROP_SIDE, size=3)
        window = (slice(None), slice(d, d + CROP_SIDE), slice(h, h + CROP_SIDE), slice(w, w + CROP_SIDE))
        both = np.concatenate([volume[window], target[window]])  # rotate them alike
        rotated = random_rotation(both, rng)
        out_x[i] = rotated[:FEATURES]
        out_y[i] = rotated[FEATURES:]
    return out_x, out_y


def make_model() -> nn.Module:
    def block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
        return [
            nn.Conv3d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm3d(cout),
            nn.ReLU(inplace=True),
        ]

    layers = [
        *block(FEATURES, 32),
        *block(32, 32),
        *block(32, 64, stride=2),
        *block(64, 64),
        *block(64, 64),
        nn.ConvTranspose3d(64, 32, 2, stride=2),
        nn.ReLU(inplace=True),
        *block(32, 32),
        nn.Conv3d(32, 1, 1),
    ]
    return nn.Sequential(*layers).to(DEVICE).to(memory_format=torch.channels_last_3d)


def train_step(model, optimizer, scaler, x, y) -> torch.Tensor:
    with record_function("forward"):
        with torch.autocast(DEVICE.type, dtype=torch.float16 if HAS_CUDA else torch.bfloat16):
            loss = nn.functional.mse_loss(model(x).float(), y)
    with record_function("backward"):
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
    with record_function("optimizer"):
        # naive: GradScaler.step does `found_inf.item()` (a blocking pageable D2H copy)
        # because plain Adam cannot take the inf check on the device; fused Adam can.
        scaler.step(optimizer)
        scaler.update()
    return loss.detach()


def run_naive(volume, target, rng, trace_path: Path) -> None:
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, foreach=False)
    scaler = torch.amp.GradScaler(DEVICE.type, enabled=HAS_CUDA)

    def one_iteration() -> None:
        with record_function("data_loading"):
            x_np, y_np = crop_batch(volume, target, rng)
            # pageable tensors and a synchronous copy: the host waits for each one
            x = torch.from_numpy(x_np).to(DEVICE).contiguous(memory_format=torch.channels_last_3d)
            y = torch.from_numpy(y_np).to(DEVICE)
        train_step(model, optimizer, scaler, x, y)

    _trace(one_iteration, trace_path)


def run_fixed(volume, target, rng, trace_path: Path) -> None:
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, fused=True)
    scaler = torch.amp.GradScaler(DEVICE.type, enabled=HAS_CUDA)
    copy_stream = torch.cuda.Stream() if HAS_CUDA else None
    ready: queue.Queue = queue.Queue(maxsize=2)
    stop = threading.Event()

    def prefetch() -> None:
        worker_rng = np.random.default_rng(int(rng.integers(1 << 31)))
        while not stop.is_set():
            with record_function("preprocess"):  # on a worker thread
                # The caching host allocator keeps pinned blocks alive until the
                # copies that read them have finished, so each batch gets its own.
                x = torch.empty((BATCH, FEATURES, CROP_SIDE, CROP_SIDE, CROP_SIDE), pin_memory=HAS_CUDA)
                y = torch.empty((BATCH, 1, CROP_SIDE, CROP_SIDE, CROP_SIDE), pin_memory=HAS_CUDA)
                crop_batch(volume, target, worker_rng, x.numpy(), y.numpy())
            while not stop.is_set():
                try:
                    ready.put((x, y), timeout=0.1)
                    break
                except queue.Full:
                    continue

    def start_copy() -> tuple[torch.Tensor, torch.Tensor]:
        with record_function("data_loading"):  # waits only if the workers fall behind
            x_pinned, y_pinned = ready.get()
        with record_function("h2d_copy"):
            if copy_stream is None:
                return x_pinned.contiguous(memory_format=torch.channels_last_3d), y_pinned
            with torch.cuda.stream(copy_stream):
                x = x_pinned.to(DEVICE, non_blocking=True).contiguous(memory_format=torch.channels_last_3d)
                y = y_pinned.to(DEVICE, non_blocking=True)
            return x, y

    workers = [
        threading.Thread(target=prefetch, name=f"prefetch{i}", daemon=True) for i in range(PREFETCH_WORKERS)
    ]
    for worker in workers:
        worker.start()
    next_batch = start_copy()
    loss_sum = torch.zeros((), device=DEVICE)

    def one_iteration() -> None:
        nonlocal next_batch, loss_sum
        x, y = next_batch
        if copy_stream is not None:
            torch.cuda.current_stream().wait_stream(copy_stream)
            x.record_stream(torch.cuda.current_stream())
            y.record_stream(torch.cuda.current_stream())
        next_batch = start_copy()  # double buffering: the next copy overlaps this step
        loss_sum = loss_sum + train_step(model, optimizer, scaler, x, y)

    try:
        _trace(one_iteration, trace_path)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    print(f"  fixed: mean loss {loss_sum.item() / (WARMUP_ITERATIONS + PROFILED_ITERATIONS):.4f}")


def _trace(one_iteration, trace_path: Path) -> None:
    for _ in range(WARMUP_ITERATIONS):
        one_iteration()
    _synchronize()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if HAS_CUDA else [])
    with profile(
        activities=activities,
        schedule=schedule(**PROFILE_SCHEDULE),
        on_trace_ready=lambda prof: _export_gzip(prof, trace_path),
        record_shapes=False,
        with_stack=False,
    ) as prof:
        for _ in range(PROFILED_ITERATIONS):
            one_iteration()
            prof.step()
    _synchronize()


def _export_gzip(prof, trace_path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(plain))
        with plain.open("rb") as src, gzip.open(trace_path, "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)


def _synchronize() -> None:
    if HAS_CUDA:
        torch.cuda.synchronize()


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out_dir = Path(argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    if not HAS_CUDA:
        print("warning: no CUDA GPU; running on the CPU, traces will hold no GPU events", file=sys.stderr)
    torch.backends.cudnn.benchmark = True
    rng = np.random.default_rng(7)
    torch.manual_seed(7)
    volume, target = make_volume(rng)
    for name, run in (("naive", run_naive), ("fixed", run_fixed)):
        started = time.perf_counter()
        path = out_dir / f"{name}.json.gz"
        run(volume, target, rng, path)
        print(f"{name}: {path} ({path.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
