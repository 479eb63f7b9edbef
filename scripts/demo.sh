#!/usr/bin/env bash
# The main job: build a fresh store from the real public data and show a ranked result.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
kistore="$here/.venv/bin/kistore"
shared="${KISTORE_SHARED:-$here/../shared}"
demo="$(mktemp -d)/kistore-demo"
"$kistore" init "$demo"
"$kistore" --store "$demo" add --allow-dangling --commit "$shared/examples/sol-execbench-submission-20464.bundle.json"
"$kistore" --store "$demo" show BenchmarkRun/sol-submission-20464
echo "demo store: $demo"
