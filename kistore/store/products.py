"""KI229 before an add writes, and the stored GPU products ``add`` and ``check`` compare with.

:mod:`kistore.core.products` owns the rule and its words. The products a store spells are
read through its names files (``store/names/ExecutionEnvironment/XX/NAME``, one per
environment, each holding its digest: :func:`kistore.core.layout.name_path`): one listing
of that directory and of each of its shards, then each environment's names file and object,
never a listing of every object. A store holds few environments (a GPU times a software
stack: 12 in the 1,000,000-manifest benchmark store), and the lookup runs only when an
add or a range brings an environment.

:func:`products_admitted` is an :data:`kistore.store.AdmissionCheck` :meth:`Store.add`
always runs: nothing is refused; a new environment whose product is a variant of a stored
one (or of another in the same add) is an :class:`kistore.store.AdmissionWarning`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core import layout
from ..core.comparison import stored_spec
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.limits import DEFAULT
from ..core.model import Manifest
from ..core.products import (
    POINTER,
    PRODUCT_SPELLED_DIFFERENTLY,
    environment_product,
    product_variants,
    variant_message,
)
from ..core.statistics import named
from ._store import AdmissionWarning
from ._views import FileTooLarge

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store
    from ._views import View

KIND = "ExecutionEnvironment"
_NAMES = f"{layout.NAMES_DIR}/{KIND}"


def stored_products(view: View) -> list[tuple[str, str, str]]:
    """Return the GPU product of every ExecutionEnvironment a tree's names files list.

    Args:
        view: the tree (a commit, or the work tree).

    Returns:
        ``(product, environment shown as KIND/NAME (digest), digest hex)`` per environment
        whose names file holds a digest whose object is an untampered ExecutionEnvironment
        stating a product, sorted. A names file or object that is missing, damaged, past
        the manifest limit or of another kind is left out (``verify`` and ``check`` say
        what is wrong with it).
    """
    found = []
    for shard in sorted(view.list_dir(_NAMES)):
        for name in sorted(view.list_dir(f"{_NAMES}/{shard}")):
            try:
                record = view.read(f"{_NAMES}/{shard}/{name}", DEFAULT.manifest_bytes)
                digest = None if record is None else layout.digest_from_record(record)
                data = None if digest is None else view.read(layout.object_path(digest),
                                                             DEFAULT.manifest_bytes)
            except FileTooLarge:
                continue
            if digest is None or data is None:
                continue
            product = environment_product(stored_spec(data, digest.hex, KIND))
            if product is not None:
                found.append((product, named(KIND, name, str(digest)), digest.hex))
    return sorted(found)


def products_admitted(store: Store, manifests: Sequence[Manifest]
                      ) -> list[tuple[Digest, KistoreError]]:
    """KI229 warnings for the environments an add would add.

    Args:
        store: the store added to (its work tree's names files and objects are read, only
            when ``manifests`` holds an ExecutionEnvironment).
        manifests: the manifests the add would add (new objects).

    Returns:
        ``(environment digest, AdmissionWarning)`` per new ExecutionEnvironment whose
        ``hardware.product`` is a variant (:func:`kistore.core.products.product_key`) of a
        spelling the work tree or another environment of the add states, at
        ``/spec/hardware/product``, naming each such spelling and an environment with it.
    """
    new = [m for m in manifests if m.kind == KIND]
    if not new:
        return []
    spelled = [(p, shown) for p, shown, _ in stored_products(store.view(None))]
    products = {m.digest: environment_product(m.spec) for m in new}
    spelled += [(p, named(KIND, m.name, str(m.digest))) for m in new
                if (p := products[m.digest]) is not None]
    problems: list[tuple[Digest, KistoreError]] = []
    for m in new:
        product = products[m.digest]
        if product is None:
            continue  # the schema requires it: that check says so
        variants = product_variants(product, spelled)
        if variants:
            problems.append((m.digest, AdmissionWarning(
                f"{variant_message(product, variants)} ({PRODUCT_SPELLED_DIFFERENTLY.id}: "
                "added all the same; `check` warns too)", pointer=POINTER)))
    return problems
