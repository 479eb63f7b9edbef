"""KI229 in ``check``: an environment the range adds spells a stored GPU product another way.

:mod:`kistore.core.products` owns the rule and its words. The environments a range adds are
found through the names files it adds (``store/names/ExecutionEnvironment/XX/NAME``: every
manifest has one, KI211), so a range of runs alone reads nothing more; the spellings HEAD
holds are read through its names files (:func:`kistore.store.products.stored_products`),
only when the range adds an environment.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core import layout
from ..core.comparison import stored_spec
from ..core.findings import Finding
from ..core.limits import DEFAULT
from ..core.products import (
    POINTER,
    PRODUCT_SPELLED_DIFFERENTLY,
    environment_product,
    product_variants,
    variant_message,
)
from ..store import FileTooLarge, View
from ..store.products import KIND, stored_products


def range_products(view: View, before: View, changed: Iterable[str]) -> list[Finding]:
    """KI229 (warnings) for the ExecutionEnvironments a range adds.

    Args:
        view: the range's head.
        before: its base.
        changed: the repository paths the range adds, changes or deletes.

    Returns:
        One warning per environment whose object the range adds (its names file among
        ``changed``, its object absent at the base) whose ``hardware.product`` is a variant
        (:func:`kistore.core.products.product_key`) of another spelling an environment of
        the head states (stored before, or added by the range too), on its object at
        ``/spec/hardware/product``, naming each such spelling and an environment with it.
    """
    arriving = []
    for path in sorted(changed):
        parsed = layout.name_from_path(path)
        if parsed is None or parsed[0] != KIND:
            continue
        try:
            record = view.read(path, DEFAULT.manifest_bytes)
            digest = None if record is None else layout.digest_from_record(record)
            if digest is None or before.modes_of([layout.object_path(digest)]):
                continue  # no manifest (KI212 says why), or one the base holds already
            data = view.read(layout.object_path(digest), DEFAULT.manifest_bytes)
        except FileTooLarge:
            continue  # KI106 says it
        product = environment_product(stored_spec(data, digest.hex, KIND))
        if product is not None:
            arriving.append((digest, product))
    if not arriving:
        return []
    spelled = [(p, shown) for p, shown, _ in stored_products(view)]
    findings = []
    for digest, product in arriving:
        variants = product_variants(product, spelled)
        if variants:
            findings.append(Finding(
                PRODUCT_SPELLED_DIFFERENTLY, variant_message(product, variants),
                file=layout.object_path(digest), pointer=POINTER, expected=variants[0][0],
                found=product, extra={"spellings": [s for s, _ in variants]}))
    return findings
