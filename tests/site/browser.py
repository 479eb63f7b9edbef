"""Headless Chromium for the site's browser tests: Debian's chromium + chromium-driver.

Selenium drives the installed ``chromedriver`` (given by path, so Selenium Manager
downloads nothing). ``make test`` installs both packages when it runs as root with
apt-get; where they are missing, each browser test is skipped with the reason. A browser
that is installed but fails to start is a failure, not a skip.

Every page load records calls to ``alert``/``confirm``/``prompt`` in
``window.__kistoreAlerts``, and what the page's Content-Security-Policy blocked in
``window.__kistoreBlocked`` (a script added to every new document through the DevTools
protocol), so a test can prove no alert fired and the policy blocked nothing of the site's.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

WIDTH = 1200

RECORD_ALERTS = """
window.__kistoreAlerts = [];
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = function (message) { window.__kistoreAlerts.push(name + ":" + message); };
}
window.__kistoreBlocked = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__kistoreBlocked.push(e.effectiveDirective + " " + (e.blockedURI || "inline"));
});
"""


def missing() -> str | None:
    """Say why the browser tests cannot run here, or None when they can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (`make test` installs the test extra)"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return ("chromium is not installed: `make test` installs chromium and "
                "chromium-driver with apt-get when it runs as root; it could not here")
    if not shutil.which("chromedriver"):
        return ("chromium-driver (chromedriver) is not installed: `make test` installs it "
                "with apt-get when it runs as root; it could not here")
    return None


def start(*, javascript: bool = True, height: int = 900) -> Any:
    """Start headless Chromium (skips the test when it is not installed)."""
    reason = missing()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={WIDTH},{height}", "--hide-scrollbars",
                "--force-device-scale-factor=1", "--lang=en-US", "--allow-file-access-from-files"):
        options.add_argument(arg)
    options.set_capability("unhandledPromptBehavior", "ignore")
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    if javascript:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": RECORD_ALERTS})
    driver.set_page_load_timeout(60)
    return driver


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
        pass


def serve(root: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    """Serve ``root`` on 127.0.0.1 (a free port) in a thread; return (base URL, server)."""
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


def screenshot(driver: Any, url: str, path: Path, *, max_height: int = 2400) -> bytes:
    """Save a full-page PNG of ``url`` (up to ``max_height`` px tall); return its bytes."""
    driver.get(url)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(WIDTH, min(int(height), max_height))
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    driver.set_window_size(WIDTH, 900)
    return path.read_bytes()
