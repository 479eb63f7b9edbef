"""pygit2 imported without loading the system's CA bundle, in the ``kistore`` command only.

Importing pygit2 (1.21, libgit2 1.9 built with OpenSSL) parses every certificate of the
system's CA bundle twice, ~106 M instructions of each command that imports it (~2% of
``verify``'s parent at 10,000; docs/speed.md, "The CA bundle at pygit2's import"):

* ``git_libgit2_init`` (the ``_pygit2`` extension's import) initialises OpenSSL at once and
  calls ``SSL_CTX_set_default_verify_paths``, which loads OpenSSL's default CA file (~47 M);
* ``pygit2.settings = Settings()`` (the last line of ``pygit2/__init__.py``) passes
  :func:`ssl.get_default_verify_paths` to ``git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS)``,
  which loads the same bundle again into libgit2's context (~57 M).

Both take the CA file from the environment variable ``SSL_CERT_FILE`` at the call, and
skip it when that names no regular file. So, for the span of pygit2's own import, the
finder :func:`arm` installs sets ``SSL_CERT_FILE`` to :data:`os.devnull`, then puts the
environment back as it was (the variable unset, or the user's value). libgit2 is left
with the CA directory (``/etc/ssl/certs``: its hashed lookup reads a certificate only
when a TLS handshake asks for one) and no bundle.

That loses nothing kistore uses: kistore never opens a network connection through
libgit2 (no ``pygit2.clone_repository``, ``Remote.fetch`` or ``Remote.push``; every fetch
and push runs the ``git`` binary: :func:`kistore.git.blobs.fetch_blobs`,
:mod:`kistore.attest.notes`, :mod:`kistore.attest.unsent`), whose HTTPS is curl's, set up
in that child from the restored environment (``tests/git/test_ca_bundle.py`` holds both).
A code path that someday fetches through libgit2 must first call
``pygit2.settings.set_ssl_cert_locations(*ssl.get_default_verify_paths()[:2])``. Armed only
by the console script (as :mod:`.watchdog`): a program importing kistore keeps pygit2's own
set-up, and so does an import made off the main thread (the environment is the process's).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from importlib.abc import Loader
from importlib.machinery import ModuleSpec
from types import ModuleType

VARIABLE = "SSL_CERT_FILE"
"""Where OpenSSL (``X509_get_default_cert_file_env``) and :mod:`ssl` take the CA file from."""


class _WithoutBundle:
    """A :data:`sys.meta_path` finder: pygit2's spec, its loader wrapped by :class:`_Loader`.

    It leaves :data:`sys.meta_path` at its first call for pygit2 and asks the finders after
    it for the spec (so pygit2 is found where it would be), on the main thread only.
    """

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        """Return pygit2's spec with its loader wrapped; None for every other module."""
        if fullname != "pygit2":
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        if threading.current_thread() is not threading.main_thread():
            return None  # the usual finders import it, as without this finder
        spec = importlib.util.find_spec(fullname)  # the finders after this one
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


class _Loader(Loader):
    """pygit2's own loader, run with ``SSL_CERT_FILE`` naming no file, then put back."""

    def __init__(self, loader: Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """Create the module as pygit2's loader does."""
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        """Run pygit2's ``__init__`` without the CA bundle; restore the environment and loader."""
        held = os.environ.get(VARIABLE)
        os.environ[VARIABLE] = os.devnull  # no regular file: neither loader reads a bundle
        try:
            self.loader.exec_module(module)
        finally:
            if held is None:
                del os.environ[VARIABLE]
            else:
                os.environ[VARIABLE] = held
            if module.__spec__ is not None:  # importlib.resources and reload see pygit2's own
                module.__spec__.loader = self.loader
            module.__loader__ = self.loader


def arm() -> None:
    """Import pygit2, when first imported in this process, without loading the CA bundle.

    Call once from the console script, before anything imports pygit2 (nothing is done
    when it is imported already).
    """
    if "pygit2" not in sys.modules and not any(
            isinstance(finder, _WithoutBundle) for finder in sys.meta_path):
        sys.meta_path.insert(0, _WithoutBundle())
