"""Moved to :mod:`kistore.git.refs` (reading a ref without libgit2 is the git layer's).

Kept so that code written against ``kistore.index.refs`` still imports; new code imports
:mod:`kistore.git.refs`.
"""

from ..git.refs import RefsUnreadable as RefsUnreadable
from ..git.refs import resolve as resolve

__all__ = ["RefsUnreadable", "resolve"]
