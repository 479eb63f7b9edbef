"""A warning a query gives once a process, however often its cause is met.

A command may read a bad ``kistore.toml`` or trust file many times (each view, each
revision); the reader is told once, on the logger of the layer that found it.
"""

from __future__ import annotations

_SAID: set[tuple[str, str]] = set()
"""What :func:`warn_once` has said in this process: (logger name, text)."""


def warn_once(logger: str, said: str) -> bool:
    """Log ``warning: SAID`` on ``logger`` unless this process already said it there.

    Args:
        logger: a :mod:`logging` logger's name (``kistore.index``, ``kistore.attest``).
        said: the warning's text, without its ``warning:`` prefix.

    Returns:
        True when it was said now, False when it had been said before.
    """
    if (logger, said) in _SAID:
        return False
    _SAID.add((logger, said))
    # Lazy: logging costs ~10 ms of a fresh process; a query that warns of nothing skips it.
    import logging

    logging.getLogger(logger).warning("warning: %s", said)
    return True
