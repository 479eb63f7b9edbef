"""kistore.core.disk_errors.named: a write's OSError names its file and says what to do."""

from __future__ import annotations

import errno

from kistore.core.disk_errors import named


def test_an_unnamed_full_disk_is_named_with_the_remedy():
    error = named(OSError(errno.ENOSPC, "No space left on device"), "/s/store/a.json")
    assert (error.errno, error.filename, error.strerror) == (
        errno.ENOSPC, "/s/store/a.json",
        "No space left on device; free space on its file system and run the command again")
    assert str(error) == ("[Errno 28] No space left on device; free space on its file "
                          "system and run the command again: '/s/store/a.json'")


def test_a_named_error_is_kept_and_a_staging_name_is_replaced():
    kept = OSError(errno.EACCES, "Permission denied", "/out/x.html")
    assert named(kept, "/out/y.html") is kept
    assert named(kept, "/out/y.html", instead_of="/out.tmp-1") is kept
    staged = OSError(errno.ENOSPC, "No space left on device", "/out.tmp-1/runs/a/index.html")
    said = named(staged, "/out/runs/a/index.html", instead_of="/out.tmp-1")
    assert (said.filename, said.errno) == ("/out/runs/a/index.html", errno.ENOSPC)
    assert isinstance(said, OSError) and said is not staged


def test_an_error_without_errno_is_kept_and_one_without_remedy_is_named_only():
    stopped = OSError("stopped: the add was interrupted")
    assert named(stopped, "/x") is stopped
    other = named(OSError(errno.EFBIG, "File too large"), "/x")
    assert (other.strerror, other.filename) == ("File too large", "/x")
    assert isinstance(other, OSError)
