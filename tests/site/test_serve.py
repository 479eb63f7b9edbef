"""`kistore site serve`: the standard library's server, on the loopback interface only."""

from __future__ import annotations

import threading
import urllib.request

from kistore.cli import main
from kistore.site.serve import LOOPBACK, make_server


def test_serves_the_site_on_loopback_with_media_types(demo_site):
    server = make_server(demo_site, 0)
    assert server.server_address[0] == LOOPBACK == "127.0.0.1"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with urllib.request.urlopen(base) as response:
            assert response.status == 200
            assert response.read() == (demo_site / "index.html").read_bytes()
        with urllib.request.urlopen(base + "index.json") as response:
            assert response.headers["Content-Type"] == "application/json"
        with urllib.request.urlopen(base + "site.css") as response:
            assert response.headers["Content-Type"].startswith("text/css")
    finally:
        server.shutdown()
        server.server_close()


def test_serve_refuses_what_is_not_a_directory(runner, tmp_path):
    result = runner.invoke(main, ["site", "serve", str(tmp_path / "none")])
    assert result.exit_code == 1
    assert f"error: {tmp_path / 'none'}: is not a directory" in result.stderr


def test_a_busy_port_is_named_with_how_to_pick_a_free_one(runner, tmp_path):
    """review r85 F21: "error: Address already in use; nothing was left half-written"."""
    import socket

    with socket.socket() as taken:
        taken.bind((LOOPBACK, 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(main, ["site", "serve", str(tmp_path), "--port", str(port)])
    assert (result.exit_code, result.stderr) == (
        1, f"error: port {port} of 127.0.0.1 is in use (another server, or a `kistore site "
           f"serve` still running): stop it, or give another port (`kistore site serve "
           f"{tmp_path} --port 0` picks a free one)\n")


def test_an_os_error_of_a_command_that_writes_nothing_says_no_half_written(
        runner, tmp_path, monkeypatch):
    """The suffix is for commands that write: a preview server writes nothing."""
    import errno

    import kistore.site.serve as serve

    def refused(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(serve.http.server, "ThreadingHTTPServer", refused)
    result = runner.invoke(main, ["site", "serve", str(tmp_path), "--port", "80"])
    assert (result.exit_code, result.stderr) == (1, "error: Permission denied\n")
