"""KI229 in ``check``: an environment the range adds spells a stored GPU product another way.

:mod:`kistore.core.products` owns the rule and its words. The environments a range adds are
found through the names files it adds (``store/names/ExecutionEnvironment/XX/NAME``: every
manifest has one, KI211), so a range of runs alone reads nothing more; the spellings HEAD
holds are read through its names files (:func:`kistore.store.products.stored_products`),
only when the range adds an environment. ``verify`` reports every pair of spellings of one
product the whole store holds (:func:`check_products`, one of its checkers).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..core import layout
from ..core.comparison import stored_spec
from ..core.digest import Digest
from ..core.findings import Finding
from ..core.limits import DEFAULT
from ..core.products import (
    POINTER,
    PRODUCT_SPELLED_DIFFERENTLY,
    environment_product,
    preference,
    product_key,
    variant_message,
    why_first,
)
from ..store import FileTooLarge, View
from ..store.products import KIND, SpellingAdvice, runs_by_product, stored_products

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..store import Store


def specs_added(view: View, before: View, changed: Iterable[str], kind: str
                ) -> Iterator[tuple[Digest, dict[str, Any] | None]]:
    """Yield ``(digest, spec)`` per manifest of ``kind`` whose object a range adds.

    Found through the names files the range adds (``store/names/KIND/XX/NAME``: every
    manifest has one, KI211), so a range of other kinds reads nothing more.

    Args:
        view: the range's head.
        before: its base.
        changed: the repository paths the range adds, changes or deletes.
        kind: the manifests' kind (``ExecutionEnvironment``, ``Implementation``).

    Yields:
        Each manifest's digest, with its spec as :func:`kistore.core.comparison.stored_spec`
        reads it (None: not the object of its digest, not JSON, not of ``kind``). A names
        file naming no manifest (KI212), one whose object the base holds, or an object past
        the size limit (KI106) is passed over. Raises nothing but what reading the trees
        raises.
    """
    for path in sorted(changed):
        parsed = layout.name_from_path(path)
        if parsed is None or parsed[0] != kind:
            continue
        try:
            record = view.read(path, DEFAULT.manifest_bytes)
            digest = None if record is None else layout.digest_from_record(record)
            if digest is None or before.modes_of([layout.object_path(digest)]):
                continue  # no manifest (KI212 says why), or one the base holds already
            data = view.read(layout.object_path(digest), DEFAULT.manifest_bytes)
        except FileTooLarge:
            continue  # KI106 says it
        yield digest, stored_spec(data, digest.hex, kind)


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
    for digest, spec in specs_added(view, before, changed, KIND):
        product = environment_product(spec)
        if product is not None:
            arriving.append((digest, product))
    if not arriving:
        return []
    advice = SpellingAdvice(view, before, counted=before)  # the range's runs never count
    findings = []
    for digest, product in arriving:
        variants, keep, why = advice.variants(product)
        if variants:
            findings.append(Finding(
                PRODUCT_SPELLED_DIFFERENTLY, variant_message(product, variants, keep, why),
                file=layout.object_path(digest), pointer=POINTER,
                expected=product if keep else variants[0][0],
                found=product, extra={"spellings": [s for s, _ in variants]}))
    return findings


def check_products(store: Store, at: str | None = None) -> list[Finding]:
    """KI229 (warnings) for ``verify``: every pair of stored spellings of one GPU product.

    One of :data:`kistore.check.audit.CHECKERS`. The gate judges the environments a range
    adds (:func:`range_products`); ``verify`` judges the whole store, where no spelling is
    the newcomer: each pair of distinct spellings whose
    :func:`kistore.core.products.product_key` is equal is said once.

    Args:
        store: a :class:`kistore.store.Store`.
        at: revision, or None for the work tree.

    Returns:
        One warning per pair of spellings ``(a, b)``, ``a`` the more used
        (:func:`kistore.core.products.preference`: more stored runs, then environments),
        on the object of the first environment (sorted) stating ``b``, at
        ``/spec/hardware/product``, expected ``a``, found ``b``, naming an environment of
        each (``extra``: ``spellings``, both). Sorted by spelling pair; empty when the
        store spells each product one way.
    """
    view = store.view(at)
    stored = stored_products(view)
    by_key: dict[str, dict[str, tuple[str, str]]] = {}
    for product, shown, hex_ in stored:  # sorted: first env kept
        by_key.setdefault(product_key(product), {}).setdefault(product, (shown, hex_))
    rank = None
    findings = []
    for spellings in by_key.values():
        if len(spellings) < 2:
            continue
        rank = rank or preference([(p, s) for p, s, _ in stored], runs_by_product(view), ())
        ordered = sorted(spellings, key=rank)
        for i, first in enumerate(ordered):
            for second in ordered[i + 1:]:
                shown, hex_ = spellings[second]
                findings.append(Finding(
                    PRODUCT_SPELLED_DIFFERENTLY,
                    f"{shown}: " + variant_message(second, [(first, spellings[first][0])],
                                                   why=why_first(first, [second], rank)),
                    file=layout.object_path(Digest(hex_)), pointer=POINTER, expected=first,
                    found=second, extra={"spellings": [first, second]}))
    return sorted(findings, key=lambda f: (f.expected or "", f.found or ""))
