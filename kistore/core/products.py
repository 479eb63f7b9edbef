"""KI229: a GPU product spelled another way than the store already spells it (reviewer r86 F8).

An ExecutionEnvironment's ``spec.hardware.product`` goes verbatim into its runs'
comparison key (:mod:`kistore.core.comparison`): ``NVIDIA H100 80GB HBM3`` and ``nvidia h100
80gb  hbm3`` make two keys, so runs that are comparable are never ranked together, and
nothing said so. Two spellings are *variants* when their :func:`product_key` is equal:
NFKC (full-width letters, ligatures, non-breaking spaces), case folded, runs of whitespace
or punctuation (but ``.``) collapsed to one space, ends stripped, a leading vendor name
dropped (``H100 PCIe`` and ``NVIDIA H100-PCIe`` are ``NVIDIA H100 PCIe``, reviewer r89
F7). The key is for this comparison only: the comparison key keeps the product as stated
(changing it would move every stored group file).

A warning, not a refusal: a store may already hold both spellings, and an environment of
the second is then no new harm. This module knows text only: callers bring the spellings
(:mod:`kistore.store.products` reads the stored ones; ``add`` warns, ``check`` warns of the
environments a range adds).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .findings import WARNING, rule
from .folding import words

POINTER = "/spec/hardware/product"
"""Where an ExecutionEnvironment states its GPU product (the warning's JSON Pointer)."""

PRODUCT_SPELLED_DIFFERENTLY = rule(
    "KI229", "gpu-product-spelling", WARNING,
    "spell spec.hardware.product exactly as the store already does (the spelling named), "
    "in a new ExecutionEnvironment: runs on environments whose products differ only in "
    "case, spacing, punctuation, Unicode form or a leading vendor name are never ranked "
    "together")


def product_key(product: str) -> str:
    """Return what two spellings of one GPU product share: NFKC, casefold, words, no vendor.

    :func:`kistore.core.folding.words`, the narrow one of the two folding policies (the
    other, :func:`kistore.core.provenance.spelled`'s, drops all but ``[a-z0-9]``; why they
    differ: :mod:`kistore.core.folding`), then a leading vendor's name dropped.

    Args:
        product: an ExecutionEnvironment's ``spec.hardware.product``.

    Returns:
        ``product`` in NFKC, case folded (NFKC again: folding may undo it), each run of
        whitespace or punctuation but ``.`` one space, no space at either end
        (:func:`kistore.core.folding.words`), a first word of :data:`VENDORS` dropped:
        ``"h100 80gb hbm3"`` for
        ``"NVIDIA H100  80GB HBM3 "``, ``"ＮＶＩＤＩＡ H100 80GB HBM3"`` and ``"H100-80GB
        HBM3"``.
    """
    parts = words(product).split()
    if len(parts) > 1 and parts[0] in VENDORS:  # 'H100 PCIe' is NVIDIA's (reviewer r89 F7)
        parts = parts[1:]
    return " ".join(parts)


VENDORS = frozenset({"nvidia", "amd", "intel"})
"""GPU vendors' names a product may begin with or leave out: ``NVIDIA H100 PCIe`` and
``H100 PCIe`` are one product (:func:`product_key` drops the first word when it is one)."""


def environment_product(spec: Any) -> str | None:
    """Return an ExecutionEnvironment spec's ``hardware.product``, or None when it states none.

    Args:
        spec: the environment's ``spec`` (parsed JSON; anything: the schema check says
            what is wrong with it).
    """
    hardware = spec.get("hardware") if isinstance(spec, dict) else None
    product = hardware.get("product") if isinstance(hardware, dict) else None
    return product if isinstance(product, str) else None


def product_variants(product: str, stored: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Return the stored spellings that are variants of ``product`` but not ``product``.

    Args:
        product: the GPU product a new environment states.
        stored: ``(spelling, environment shown as KIND/NAME (digest))`` per stored
            environment (any order; the new environment itself may be among them).

    Returns:
        One ``(spelling, environment)`` per distinct other spelling with the same
        :func:`product_key`, the first environment (sorted) stating it; sorted by spelling.
        Empty when none.
    """
    key = product_key(product)
    found: dict[str, str] = {}
    for spelling, shown in sorted(stored):
        if spelling != product and spelling not in found and product_key(spelling) == key:
            found[spelling] = shown
    return sorted(found.items())


def variant_message(product: str, variants: list[tuple[str, str]]) -> str:
    """Say that ``product`` is another spelling of products the store holds (KI229).

    Args:
        product: the new environment's GPU product.
        variants: what :func:`product_variants` returned (not empty).

    Returns:
        One sentence naming each stored spelling and an environment stating it, and why it
        matters (the runs get another comparison key).
    """
    shown = "; ".join(f"{spelling!r} ({environment})" for spelling, environment in variants)
    return (f"hardware.product {product!r} differs only in case, spacing, punctuation, Unicode "
            f"form or a leading vendor name from "
            f"what the store spells {shown}: its runs get another comparison key and are "
            f"never ranked with theirs; use {variants[0][0]!r}")
