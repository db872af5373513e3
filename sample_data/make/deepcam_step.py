"""One training step of a small DeepCAM-like segmentation network, for profiling.

The shape follows DeepCAM (Kurth et al.; profiled in Wang, Yang, Williams et al.,
"Hierarchical Roofline Performance Analysis for Deep Learning Applications"): a
convolutional encoder, an atrous spatial pyramid pooling (ASPP) block of dilated
convolutions, and a transposed-convolution decoder with two skip connections.
It is scaled down so that one step launches a few hundred kernels.

    python deepcam_step.py --precision fp32|amp

Runs 5 warm-up steps, then one step between torch.cuda.profiler.start() and
stop(), with NVTX ranges "forward", "backward" and "optimizer"; profile it with
``ncu --profile-from-start off --nvtx ...``.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_bn_relu(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class ASPP(nn.Module):
    """Parallel dilated convolutions plus image-level pooling, fused by a 1×1 conv."""

    def __init__(self, cin: int, cout: int, rates=(1, 2, 4)):
        super().__init__()
        self.branches = nn.ModuleList(
            [nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())]
            + [conv_bn_relu(cin, cout, dilation=r) for r in rates[1:]]
        )
        self.pool = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.ReLU())
        self.project = nn.Sequential(
            nn.Conv2d(cout * (len(self.branches) + 1), cout, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        )

    def forward(self, x):
        pooled = self.pool(F.adaptive_avg_pool2d(x, 1)).expand(-1, -1, *x.shape[2:])
        return self.project(torch.cat([b(x) for b in self.branches] + [pooled], dim=1))


class DeepCAMLike(nn.Module):
    def __init__(self, in_channels: int = 16, classes: int = 3, width: int = 32):
        super().__init__()
        self.stem = conv_bn_relu(in_channels, width)
        self.enc1 = conv_bn_relu(width, width * 2, stride=2)  # 1/2
        self.enc2 = conv_bn_relu(width * 2, width * 4, stride=2)  # 1/4
        self.aspp = ASPP(width * 4, width * 4)
        self.up1 = nn.ConvTranspose2d(width * 4, width * 2, 2, stride=2)  # 1/2
        self.dec1 = conv_bn_relu(width * 4, width * 2)  # after skip from enc1
        self.up2 = nn.ConvTranspose2d(width * 2, width, 2, stride=2)  # 1/1
        self.dec2 = conv_bn_relu(width * 2, width)  # after skip from stem
        self.head = nn.Conv2d(width, classes, 1)

    def forward(self, x):
        s0 = self.stem(x)
        s1 = self.enc1(s0)
        y = self.aspp(self.enc2(s1))
        y = self.dec1(torch.cat([self.up1(y), s1], dim=1))
        y = self.dec2(torch.cat([self.up2(y), s0], dim=1))
        return self.head(y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--precision", choices=("fp32", "amp"), default="fp32")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--height", type=int, default=96)
    parser.add_argument("--width", type=int, default=144)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cuda")
    model = DeepCAMLike().to(device).to(memory_format=torch.channels_last)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    amp = args.precision == "amp"
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    # DeepCAM's climate channels and per-pixel class labels, synthetic.
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
    torch.cuda.profiler.start()
    step()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(f"deepcam_step: one {args.precision} step profiled")


if __name__ == "__main__":
    main()
