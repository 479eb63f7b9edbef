"""Run ``python -m bench`` from ``make bench`` with the checkout's root after the standard library.

``make`` runs Python with ``-P`` so that no file at the checkout's root can shadow a standard
module (reviewer r82 F3); ``-P`` also keeps the root, where the ``bench`` package lives, off the
path, so ``python -P -m bench`` cannot find it. This appends the root (never prepends it) and
runs the package as ``python -m bench`` would, with this script's arguments.

Usage: ``python -P scripts/bench.py [BENCH OPTIONS]`` from any directory.
"""

import runpy
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))
runpy.run_module("bench", run_name="__main__", alter_sys=True)
