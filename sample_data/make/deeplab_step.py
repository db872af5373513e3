"""One training step of torchvision's DeepLabv3-ResNet50, for profiling.

A second, larger model than deepcam_step.py (about 800 launches a step) for checking
`rooftui diff` FP32 vs AMP by hand. Random initialisation: nothing is downloaded.

    python deeplab_step.py --precision fp32|amp [--batch 2 --size 256]

Runs warm-up steps, then one step between torch.cuda.profiler.start() and stop(),
with NVTX ranges "forward", "backward" and "optimizer"; profile it with
``ncu --profile-from-start off --nvtx ...`` (sample_data/make/make_deeplab.sh).
"""

import argparse

import torch
import torch.nn.functional as F
from torchvision.models.segmentation import deeplabv3_resnet50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--precision", choices=("fp32", "amp"), default="fp32")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--classes", type=int, default=21)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cuda")
    model = deeplabv3_resnet50(
        weights=None, weights_backbone=None, num_classes=args.classes, aux_loss=False
    ).to(device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    amp = args.precision == "amp"
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    images = torch.randn(args.batch, 3, args.size, args.size, device=device)
    labels = torch.randint(0, args.classes, (args.batch, args.size, args.size), device=device)

    def step() -> None:
        torch.cuda.nvtx.range_push("forward")
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            logits = model(images)["out"]
            loss = F.cross_entropy(logits.float(), labels)
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
    torch.cuda.profiler.start()
    step()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(f"deeplab_step: one {args.precision} step profiled")


if __name__ == "__main__":
    main()
