#!/usr/bin/env python3
"""The study's CNN in PyTorch, for comparison with bench_models' BM_cnn_train_step.

Same architecture and step as models/cnn.hpp: conv 3x3x16 + ReLU + max-pool, conv 3x3x32 +
ReLU + max-pool, fc 1568->512 + ReLU, dropout 0.25, fc 512->10; one step = forward, mean
cross-entropy, backward (parameter gradients only), at batch 32 on one thread. Prints the
median and best milliseconds per step. Exits 0 with a message when torch is not installed
(Debian: apt-get install python3-torch, then run it with /usr/bin/python3 if another python3
comes first on the PATH).

    python3 bench/pytorch_cnn_step.py [--steps 200] [--batch 32]
"""

import argparse
import statistics
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="timed steps (after 20 warm-up)")
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    try:
        import torch
        from torch import nn
    except ImportError:
        print("torch not installed, skipping")
        return 0

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 7 * 7, 512), nn.ReLU(), nn.Dropout(0.25),
        nn.Linear(512, 10),
    )
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    x = torch.rand(args.batch, 1, 28, 28) * 2 - 1
    y = torch.randint(0, 10, (args.batch,))

    def step() -> None:
        model.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()

    for _ in range(20):
        step()
    wall, cpu = [], []
    for _ in range(args.steps):
        start, start_cpu = time.perf_counter(), time.thread_time()
        step()
        wall.append((time.perf_counter() - start) * 1e3)
        cpu.append((time.thread_time() - start_cpu) * 1e3)
    params = sum(p.numel() for p in model.parameters())
    # CPU time of this thread is what bench_models reports; wall time includes waiting for the
    # processor when the machine is busy.
    print(f"torch {torch.__version__}, 1 thread, batch {args.batch}, {params} parameters: "
          f"median {statistics.median(cpu):.2f} ms/step CPU ({min(cpu):.2f} best), "
          f"median {statistics.median(wall):.2f} ms/step wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
