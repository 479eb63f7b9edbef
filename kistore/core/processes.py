"""Whether a process is still there, by its id (a lock's or a temporary file's owner).

No kistore code here beyond the standard library: ``os.kill(pid, 0)`` (kill(2) with
signal 0 checks that the process exists and sends nothing).
"""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Return True when process ``pid`` exists (or cannot be told apart from one that does).

    Args:
        pid: a process id (a positive integer, as a lock line or a file name holds it).

    Returns:
        False only when kill(2) says there is no such process (``ESRCH``); True when it
        exists, or when asking is not allowed (``EPERM``: another user's) or the id is
        beyond what the system takes (it cannot be said gone).
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
