"""A training loop that traces itself with tilescope.pvti, as a libpvti
program does: each epoch is a span, each step a decorated function, the
start of an epoch an instant, and the epoch's mean loss a point of a
series. The model is a line fitted to noisy points by gradient descent.

Run it with tracing on, then read the trace:

    PVTI_OPTIONS='{"enable":"true","directory":"trace"}' python3 traced_loop.py
    tilescope trace trace/
"""
import argparse
import json
import random

from tilescope import pvti

channel = pvti.createTraceChannel("Training")
loss_graph = pvti.Graph("Loss", "")
epoch_loss = loss_graph.addSeries("epoch mean")


@pvti.Tracepoint(channel, "train_step")
def train_step(w, b, batch, lr):
    """One gradient-descent step on a batch of (x, y): the new weights and
    the batch's mean squared error."""
    gw = gb = loss = 0.0
    for x, y in batch:
        err = w * x + b - y
        loss += err * err
        gw += 2 * err * x
        gb += 2 * err
    n = len(batch)
    return w - lr * gw / n, b - lr * gb / n, loss / n


@pvti.instrument_fn(channel)
def make_data(n, rng):
    """Points around y = 3x + 1."""
    xs = [rng.uniform(-1, 1) for _ in range(n)]
    return [(x, 3 * x + 1 + rng.gauss(0, 0.1)) for x in xs]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20, help="steps per epoch")
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    rng = random.Random(1)
    data = make_data(args.steps * 8, rng)
    w = b = 0.0
    for epoch in range(args.epochs):
        pvti.instantEvent(channel, f"Epoch {epoch} begin")
        with pvti.Tracepoint(channel, f"Epoch {epoch}", json.dumps({"lr": args.lr})):
            total = 0.0
            for step in range(args.steps):
                w, b, loss = train_step(w, b, data[step * 8:(step + 1) * 8], args.lr)
                total += loss
            epoch_loss.add(total / args.steps)
        print(f"epoch {epoch}: loss {total / args.steps!r}")
    print(f"w={w:.3f} b={b:.3f} trace: {pvti.getCurrentTraceFilename() or '(tracing off)'}")


if __name__ == "__main__":
    main()
