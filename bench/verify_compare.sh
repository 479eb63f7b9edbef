#!/bin/bash
# Time `kistore verify` (work tree and --at HEAD) of one store, before and after a change,
# beside `sha256sum` over the same object files, in the same run (3 rounds, fresh processes).
#
# Usage: bench/verify_compare.sh STORE_REPO BEFORE_SRC
#   STORE_REPO  a store built by the bench generator, e.g. with
#               python -c "from bench.generate import write_jsonl; from pathlib import Path;
#                          write_jsonl(Path('all.jsonl'), 20000)"
#               split -n l/4 -d --additional-suffix=.jsonl all.jsonl part.
#               kistore init S; for p in part.0*.jsonl; do kistore --store S add --commit -m "$p" "$p"; done
#   BEFORE_SRC  a directory holding the old kistore/ and schemas/ (git archive main kistore schemas)
# Prints wall seconds, objects/s and the ratio to sha256sum's rate for each run, and the CPU
# seconds (user + sys, workers included), which move less than wall time on a shared machine.
set -euo pipefail
store=$1 before=$2
here=$(cd "$(dirname "$0")/.." && pwd)
py=$here/.venv/bin/python
list=$(mktemp)
find "$store/store/objects" -name '*.json' -print0 > "$list"
n=$(tr -cd '\0' < "$list" | wc -c)
run='import os, sys
src = os.environ.get("KI_SRC")
if src:
    sys.path.insert(0, src)
from kistore.cli import main
assert not src or sys.modules["kistore"].__file__.startswith(src)
main()'
cpu=$(mktemp)
# t CMD...: print CMD's wall seconds; leave its CPU seconds (user + sys) in $cpu
t() {
  local s e
  s=$(date +%s.%N)
  /usr/bin/time -f "%U + %S" -o "$cpu" "$@" >/dev/null 2>&1 || true
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
c() { tail -1 "$cpu" | bc; }
for round in 1 2 3; do
  sha=$(t xargs -0 -a "$list" sha256sum)
  for at in "" "--at HEAD"; do
    # shellcheck disable=SC2086
    b=$(KI_SRC=$before t "$py" -c "$run" --store "$store" verify $at); bc_=$(c)
    # shellcheck disable=SC2086
    a=$(t "$py" -c "$run" --store "$store" verify $at); ac=$(c)
    printf "round %s %-10s n=%s sha256sum %.2fs (%.0f/s) | before %.2fs (%.0f/s, %.3fx) cpu %.2fs | after %.2fs (%.0f/s, %.3fx) cpu %.2fs\n" \
      "$round" "${at:-worktree}" "$n" "$sha" "$(echo "$n/$sha" | bc -l)" \
      "$b" "$(echo "$n/$b" | bc -l)" "$(echo "$sha/$b" | bc -l)" "$bc_" \
      "$a" "$(echo "$n/$a" | bc -l)" "$(echo "$sha/$a" | bc -l)" "$ac"
  done
done
rm -f "$list" "$cpu"
