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
