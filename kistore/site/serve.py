"""``kistore site serve``: a local preview of a built site (the standard library's server).

Serves the files of one directory over HTTP on the loopback interface only (127.0.0.1),
read-only, with the standard library's :class:`http.server.SimpleHTTPRequestHandler`. It
is a preview, not a production server: the site is static files any web server (or
``file://``) can show.
"""

from __future__ import annotations

import errno
import functools
import http.server
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import InputError

LOOPBACK = "127.0.0.1"


def make_server(out: str | os.PathLike[str], port: int = 8000) -> http.server.ThreadingHTTPServer:
    """Return an HTTP server for the site under ``out``, bound to 127.0.0.1:``port``.

    Args:
        out: the site's directory.
        port: TCP port; 0 picks a free one (read it from ``server.server_address``).

    Raises:
        InputError: ``out`` is not a directory; or ``port`` is in use, naming it and saying
            that ``--port 0`` picks a free one (review r85 F21).
        OSError: the port cannot be bound otherwise (a port below 1024 without the right).
    """
    root = Path(out)
    if not root.is_dir():
        raise InputError("is not a directory; build a site there first with `kistore site "
                         "build OUT`", file=str(root))
    handler = functools.partial(_Handler, directory=str(root))
    try:
        return http.server.ThreadingHTTPServer((LOOPBACK, port), handler)
    except OSError as e:
        if e.errno != errno.EADDRINUSE:
            raise
        raise InputError(f"port {port} of {LOOPBACK} is in use (another server, or a "
                         "`kistore site serve` still running): stop it, or give another port "
                         f"(`kistore site serve {shlex.quote(str(root))} --port 0` picks a "
                         "free one)") from None


def serve(out: str | os.PathLike[str], port: int = 8000,
          ready: Callable[[str], Any] | None = None) -> None:
    """Serve the site under ``out`` on http://127.0.0.1:``port``/ until interrupted.

    Args:
        out: the site's directory.
        port: TCP port (0: any free port).
        ready: called with the site's URL once the server listens.

    Raises:
        InputError, OSError: as :func:`make_server`.
    """
    with make_server(out, port) as server:
        bound = server.server_address[1]
        if ready is not None:
            ready(f"http://{LOOPBACK}:{bound}/")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The standard handler with JSON, CSS and JS served under their media types."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".json": "application/json", ".css": "text/css",
                      ".js": "text/javascript"}
