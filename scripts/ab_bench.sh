#!/usr/bin/env bash
# Times one benchmark built against two revisions of the library, in the same run, alternating,
# so a change is measured against what it replaces on the same GPU minutes apart rather than
# against figures from another run (the copy roofline and the look-back kernels both move by a
# few percent between runs and machines).
#
#     scripts/ab_bench.sh REV_A REV_B BENCH FILTER [ROUNDS]
#
# REV_A and REV_B are git revisions, or "." for the working tree; BENCH is a file in benchmarks/
# without .cu (linrec_bench, tensor_bench, types_bench); FILTER is a --benchmark_filter regular
# expression (use "." for "[": brackets do not match there); ROUNDS (default 2) is how many
# times each binary runs, A then B. Only include/ comes from the revisions: both binaries use the
# benchmark source of the working tree. Needs nvcc and Google Benchmark; prints each result line
# prefixed with A1, B1, A2, ...
#
# Example (session 19's A/B of the vector store):
#     scripts/ab_bench.sh 098c37b 928563b linrec_bench '^(linrec|linrec_backward)/rows:1/T:268435456/'
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,18p' "$0" >&2
  exit 2
fi
rev_a=$1 rev_b=$2 bench=$3 filter=$4 rounds=${5:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=/usr/local/cuda/bin:$PATH

headers() {  # headers REV DIR: the library's include/ at REV (or the working tree's) under DIR
  mkdir -p "$2"
  if [ "$1" = . ]; then
    cp -r "$root/include" "$2/"
  else
    git -C "$root" archive "$1" include | tar -x -C "$2"
  fi
}

pids=()
for side in a b; do
  rev=rev_$side
  headers "${!rev}" "$work/$side"
  nvcc -std=c++17 -O3 -arch=sm_90 -DNDEBUG -I"$work/$side/include" "$root/benchmarks/$bench.cu" \
    -o "$work/${bench}_$side" -lbenchmark -lpthread &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

for round in $(seq 1 "$rounds"); do
  for side in a b; do
    label=$(echo "$side" | tr ab AB)$round
    # Result lines, and anything that says why there are none (no device, a failed check).
    "$work/${bench}_$side" --benchmark_filter="$filter" --benchmark_counters_tabular=true 2>&1 |
      grep -E '^[a-z_0-9]+/|ERROR|no CUDA' | sed -E 's/ +/ /g' | sed "s/^/$label /" || true
  done
done
