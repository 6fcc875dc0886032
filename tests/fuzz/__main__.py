"""`python -m tests.fuzz [--count N] [--seed S] [--gpu]`: a fuzzing campaign.

Runs cases `seed .. seed + count - 1` in the interpreter against the numpy reference
(with --gpu: also compiled on the current CUDA device, against the interpreter and the
reference), minimises every disagreement and prints it with its kernel source. Exits 1
when any case disagrees. `--precompile` only fills the kernel cache with the cases'
sm_90 cubins (no GPU needed), so that a GPU host can launch them from the cache.
"""

from __future__ import annotations

import argparse
import sys
import time

from tests.fuzz.generator import generate, source
from tests.fuzz.runner import check, minimise, precompile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--count", type=int, default=200, help="number of kernels")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--gpu", action="store_true",
                        help="also compile each kernel for the current CUDA device")
    parser.add_argument("--fp8", action="store_true",
                        help="with --gpu or --precompile: keep fp8 inputs too (the "
                             "interpreter-only mode always has them)")
    parser.add_argument("--precompile", action="store_true",
                        help="only compile each kernel for sm_90 into the kernel cache")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    if args.precompile:
        for seed in range(args.seed, args.seed + args.count):
            precompile(generate(seed, fp8=args.fp8))
        print(f"{args.count} kernels compiled for sm_90 into the kernel cache")
        return 0
    device = "cuda" if args.gpu else None
    start, failures = time.perf_counter(), []
    fp8 = args.fp8 or device is None
    for seed in range(args.seed, args.seed + args.count):
        case = generate(seed, fp8)
        outcome = check(case, device)
        if outcome.ok:
            continue
        small = minimise(case, lambda c: not check(c, device).ok)
        failures.append(seed)
        print(f"seed {seed}: {outcome.message}\nminimised: {small}\n{source(small)}",
              flush=True)
    mode = "compiled + interpreter" if device else "interpreter"
    print(f"{args.count} kernels ({mode}) in {time.perf_counter() - start:.1f} s: "
          f"{len(failures)} disagreements{': seeds ' + str(failures) if failures else ''}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
