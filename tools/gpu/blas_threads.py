#!/usr/bin/env python3
"""Issue 13 on the GPU machine's 16 cores: where host:openblas's thread choice loses to the
bare OpenBLAS loop, time each point with every thread count, so that the thresholds come from
measurements on 16 cores (those in hostblas/host.c were chosen on 2).

  python3 tools/gpu/blas_threads.py [--rounds R] [--out FILE]

For each point (d, L, B): host:openblas as built (CLPARITY_HOST_THREADS unset), with its pool
capped at 2, 4 and 8 threads (CLPARITY_HOST_THREADS), and the bare loop (build/bare_openblas)
with OpenBLAS on 1, 2, 4, 8 and 16 threads (OPENBLAS_NUM_THREADS). Every variant runs in a
process of its own, all variants in turn, R rounds; the table shows the median of the rounds'
medians in ms. A benchmark, not a test."""
import argparse
import os
import statistics
import time
from importlib.machinery import SourceFileLoader

# tools/bench's runners: clparity run --json, and the bare loop (build/bare_openblas)
bench = SourceFileLoader("bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                               "bench")).load_module()

# The points where host:openblas missed the floor on 16 cores (docs/PERFORMANCE.md, issue 13)
# and their neighbours.
POINTS = [(64, 128, 1), (128, 128, 1), (128, 128, 2), (128, 128, 4), (128, 128, 8),
          (128, 128, 16), (128, 128, 32), (128, 128, 128), (256, 128, 1), (512, 128, 1),
          (512, 16, 64), (1024, 128, 1), (2048, 32, 1), (4096, 8, 1), (1024, 4, 1024)]


def time_clparity(d, layers, batch, threads):
    env = dict(os.environ)
    env.pop("CLPARITY_HOST_THREADS", None)
    if threads:
        env["CLPARITY_HOST_THREADS"] = str(threads)
    runs, warmup = bench.cpu_runs(d * d * layers * batch)
    doc = bench.clparity(["-d", "host", "--engines", "host:openblas", "--d-model", str(d),
                          "--layers", str(layers), "--batch", str(batch), "--runs", str(runs),
                          "--warmup", str(warmup)], env=env)
    return bench.wall(doc, "host:openblas")


def time_bare(d, layers, batch, threads):
    runs, warmup = bench.cpu_runs(d * d * layers * batch)
    return bench.bare_time(d, layers, batch, runs, warmup,
                           env=dict(os.environ, OPENBLAS_NUM_THREADS=str(threads)))


VARIANTS = [("ours", lambda p: time_clparity(*p, None)),
            ("ours/2", lambda p: time_clparity(*p, 2)),
            ("ours/4", lambda p: time_clparity(*p, 4)),
            ("ours/8", lambda p: time_clparity(*p, 8)),
            ("bare/1", lambda p: time_bare(*p, 1)),
            ("bare/2", lambda p: time_bare(*p, 2)),
            ("bare/4", lambda p: time_bare(*p, 4)),
            ("bare/8", lambda p: time_bare(*p, 8)),
            ("bare/16", lambda p: time_bare(*p, 16))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=240.0,
                    help="start no new point after this many seconds")
    args = ap.parse_args()
    t0 = time.time()
    print(f"blas_threads, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} cores, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; "
          f"median of {args.rounds} rounds, ms")
    print(f"{'d':>5} {'L':>4} {'B':>5} " + " ".join(f"{n:>8}" for n, _ in VARIANTS)
          + "  ours/best-bare")
    for p in POINTS:
        if time.time() - t0 > args.time_limit:
            print(f"time limit: not run from {p}")
            break
        times = {n: [] for n, _ in VARIANTS}
        for _ in range(args.rounds):
            for n, f in VARIANTS:
                times[n].append(f(p))
        med = {n: statistics.median(v) * 1e3 for n, v in times.items()}
        best = min(v for n, v in med.items() if n.startswith("bare"))
        print(f"{p[0]:5d} {p[1]:4d} {p[2]:5d} " + " ".join(f"{med[n]:8.3f}" for n, _ in VARIANTS)
              + f"  {best / med['ours']:.2f}", flush=True)
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
