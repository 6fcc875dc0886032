#!/usr/bin/env bash
# The GPU test corpus under compute-sanitizer: memcheck, racecheck and synccheck.
#
#   tests/compute_sanitizer.sh                 every `gpu` test, each tool in turn
#   tests/compute_sanitizer.sh tests/test_dot_gpu.py -k wgmma   a subset (pytest arguments)
#
# Each tool runs pytest once over the selected tests; the script stops at the first tool
# that reports an error (exit status 99) or a failing test, and prints a summary line per
# tool. FUZZ_COUNT (default 100) generated kernels also run compiled under each tool.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
FUZZ_COUNT=${FUZZ_COUNT:-100}
SELECTION=("$@")
if [ ${#SELECTION[@]} -eq 0 ]; then
    SELECTION=(tests)
fi
for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 99 --target-processes all \
        "$PYTHON" -m pytest -q -m gpu -p no:cacheprovider "${SELECTION[@]}"
    compute-sanitizer --tool "$tool" --error-exitcode 99 --target-processes all \
        "$PYTHON" -m tests.fuzz --gpu --count "$FUZZ_COUNT"
    echo "== $tool: no errors"
done
