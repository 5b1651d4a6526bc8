#!/usr/bin/env python3
"""Issue 13 on the GPU machine's 16 cores: where host:openblas's thread choice loses to the
bare OpenBLAS loop, time each point with every thread count, so that the thresholds come from
measurements on 16 cores (those in hostblas/blas.c were chosen on 2).

  python3 tools/gpu/blas_threads.py [--rounds R] [--out FILE]

For each point (d, L, B): host:openblas as built, with every layer on its pool
(CLPARITY_HOST_SPLIT=pool) at 16, 8 and 4 threads (CLPARITY_HOST_THREADS), with every layer on
OpenBLAS's threads (CLPARITY_HOST_SPLIT=openblas), the bare loop (build/bare_openblas) with
OpenBLAS on 8 and 16 threads (OPENBLAS_NUM_THREADS), and PyTorch CPU where it imports (a fresh
process each). Every variant runs in a
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

# The points where host:openblas missed a floor on 16 cores (docs/PERFORMANCE.md, issue 13:
# against the bare loop at d=128 B=16 on 2 cores, against PyTorch at d=128 B=512, d=512 L=16
# B=64 and d=1024 L=4 B=256 on 16) and their neighbours.
POINTS = [(128, 128, 8), (128, 128, 16), (128, 128, 32), (128, 128, 64), (128, 128, 128),
          (128, 128, 256), (128, 128, 512), (128, 128, 1024), (128, 128, 2048), (512, 16, 64),
          (512, 16, 256), (1024, 4, 256), (1024, 4, 1024), (2048, 4, 256)]


def time_clparity(d, layers, batch, threads, split=None, pin=None, engine="host:openblas"):
    env = dict(os.environ)
    for k in ("CLPARITY_HOST_THREADS", "CLPARITY_HOST_SPLIT", "CLPARITY_HOST_PIN"):
        env.pop(k, None)
    if threads:
        env["CLPARITY_HOST_THREADS"] = str(threads)
    if split:
        env["CLPARITY_HOST_SPLIT"] = split
    if pin:
        env["CLPARITY_HOST_PIN"] = pin
    runs, warmup = bench.cpu_runs(d * d * layers * batch)
    doc = bench.clparity(["-d", "host", "--engines", engine, "--d-model", str(d),
                          "--layers", str(layers), "--batch", str(batch), "--runs", str(runs),
                          "--warmup", str(warmup)], env=env)
    return bench.wall(doc, engine)


def time_bare(d, layers, batch, threads):
    runs, warmup = bench.cpu_runs(d * d * layers * batch)
    return bench.bare_time(d, layers, batch, runs, warmup,
                           env=dict(os.environ, OPENBLAS_NUM_THREADS=str(threads)))


def time_torch(d, layers, batch):
    runs, warmup = bench.cpu_runs(d * d * layers * batch)
    return bench.torch_time_isolated("cpu", d, layers, batch, runs, warmup)


# host:openblas as built, with every layer on the pool (CLPARITY_HOST_SPLIT=pool) on 16, 8 and
# 4 threads, with every layer on OpenBLAS's threads (=openblas), the bare loop on 8 and 16
# OpenBLAS threads, host:openblas and host:exact with the pool's threads left unpinned
# (CLPARITY_HOST_PIN=0) and host:exact as built, and PyTorch CPU where it imports.
VARIANTS = [("ours", lambda p: time_clparity(*p, None)),
            ("pool", lambda p: time_clparity(*p, None, "pool")),
            ("pool/8", lambda p: time_clparity(*p, 8, "pool")),
            ("pool/4", lambda p: time_clparity(*p, 4, "pool")),
            ("openblas", lambda p: time_clparity(*p, None, "openblas")),
            ("bare/8", lambda p: time_bare(*p, 8)),
            ("bare/16", lambda p: time_bare(*p, 16)),
            ("nopin", lambda p: time_clparity(*p, None, None, "0")),
            ("pool/nopin", lambda p: time_clparity(*p, None, "pool", "0")),
            ("exact", lambda p: time_clparity(*p, None, None, None, "host:exact")),
            ("exact/nopin", lambda p: time_clparity(*p, None, None, "0", "host:exact"))]
if bench.torch_importable():
    VARIANTS.append(("torch", lambda p: time_torch(*p)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=240.0,
                    help="start no new point after this many seconds")
    ap.add_argument("--variants", help="comma-separated names of the variants to run (default all)")
    ap.add_argument("--points", help="comma-separated d:L:B (default the built-in list)")
    args = ap.parse_args()
    global VARIANTS, POINTS
    if args.variants:
        VARIANTS = [v for v in VARIANTS if v[0] in args.variants.split(",")]
    if args.points:
        POINTS = [tuple(int(x) for x in p.split(":")) for p in args.points.split(",")]
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
        bare = [v for n, v in med.items() if n.startswith("bare")]
        vs = f"  {min(bare) / med['ours']:.2f}" if bare and "ours" in med else ""
        print(f"{p[0]:5d} {p[1]:4d} {p[2]:5d} " + " ".join(f"{med[n]:8.3f}" for n, _ in VARIANTS)
              + vs, flush=True)
        print("      rounds: " + "; ".join(f"{n} " + " ".join(f"{v * 1e3:.3f}" for v in times[n])
                                        for n, _ in VARIANTS), flush=True)
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
