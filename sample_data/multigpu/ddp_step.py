"""The DeepCAM-like step of sample_data/make/deepcam_step.py on several GPUs (DDP).

    torchrun --nproc_per_node 2 ddp_step.py --precision amp
    python ddp_step.py --precision amp          # one GPU, the same per-rank work

Each rank trains the same model (DistributedDataParallel, NCCL) on its own batch
of the same shape as the single-GPU sample; 5 warm-up steps, then one step between
torch.cuda.profiler.start() and stop() with NVTX ranges "forward", "backward" and
"optimizer" (the gradient all-reduces run inside "backward").
"""

import argparse
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "make"))
from deepcam_step import DeepCAMLike  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--precision", choices=("fp32", "amp"), default="amp")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--height", type=int, default=96)
    parser.add_argument("--width", type=int, default=144)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()

    distributed = "RANK" in os.environ
    rank = int(os.environ.get("RANK", 0))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    if distributed:
        dist.init_process_group("nccl", device_id=device)
    torch.manual_seed(rank)
    model = DeepCAMLike().to(device).to(memory_format=torch.channels_last)
    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    amp = args.precision == "amp"
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    images = torch.randn(args.batch, 16, args.height, args.width, device=device)
    images = images.to(memory_format=torch.channels_last)
    labels = torch.randint(0, 3, (args.batch, args.height, args.width), device=device)
    class_weights = torch.tensor([0.1, 1.0, 1.0], device=device)

    def step() -> None:
        torch.cuda.nvtx.range_push("forward")
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            logits = model(images)
            loss = F.cross_entropy(logits.float(), labels, weight=class_weights)
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("backward")
        scaler.scale(loss).backward()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("optimizer")
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.nvtx.range_pop()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    torch.cuda.profiler.start()
    step()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(f"ddp_step rank {rank}: one {args.precision} step profiled, {time.perf_counter() - start:.3f} s")
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
