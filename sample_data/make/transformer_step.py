"""One GPT-style BF16 training step, for measuring ``rooftui profile`` (issue #22).

    python3 sample_data/make/transformer_step.py --blocks 4

Pre-norm decoder blocks (LayerNorm, QKV projection, causal SDPA attention, output
projection, GELU MLP), BF16 weights and activations, cross-entropy loss over a
vocabulary, and AdamW with ``fused=True``. Runs ``--warmup`` steps, then one step
between torch.cuda.profiler.start() and stop(), for
``ncu --profile-from-start off``; NVTX ranges forward / backward / optimizer.
The same blocks repeated ``--blocks`` times: deeper models launch the same kernels
more often, which is what a signature-deduplicated profile should not pay for.
"""

from __future__ import annotations

import argparse
import time

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(width, dim=-1)
        shape = (batch, seq, self.heads, width // self.heads)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(attended.transpose(1, 2).reshape(batch, seq, width))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Gpt(nn.Module):
    def __init__(self, vocab: int, width: int, heads: int, blocks: int, seq: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.zeros(seq, width))
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(blocks))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) + self.position
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cuda")
    model = Gpt(args.vocab, args.width, args.heads, args.blocks, args.seq).to(device, torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, args.vocab, (args.batch, args.seq), device=device)
    targets = torch.randint(0, args.vocab, (args.batch, args.seq), device=device)

    def step() -> None:
        torch.cuda.nvtx.range_push("forward")
        logits = model(tokens)
        loss = F.cross_entropy(logits.view(-1, args.vocab).float(), targets.view(-1))
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("backward")
        loss.backward()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("optimizer")
        optimizer.step()
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
    print(f"transformer_step: {args.blocks} blocks, profiled step {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
