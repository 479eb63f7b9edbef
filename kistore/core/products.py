"""KI229: a GPU product spelled another way than the store already spells it (reviewer r86 F8).

An ExecutionEnvironment's ``spec.hardware.product`` goes verbatim into its runs'
comparison key (:mod:`kistore.core.comparison`): ``NVIDIA H100 80GB HBM3`` and ``nvidia h100
80gb  hbm3`` make two keys, so runs that are comparable are never ranked together, and
nothing said so. Two spellings are *variants* when their :func:`product_key` is equal:
NFKC (full-width letters, ligatures, non-breaking spaces), case folded, runs of whitespace
or punctuation (but a ``.`` inside a word) collapsed to one space, ends stripped, a leading
vendor name dropped (``H100 PCIe`` and ``NVIDIA H100-PCIe`` are ``NVIDIA H100 PCIe``,
reviewer r89 F7), ASCII look-alikes and a model number's spacing folded (``PCle``,
``H1OO``, ``B-200``, ``80 GB``, reviewer r90 F4). The advice names the spelling most
stored runs use (:func:`preference`). The key is for this comparison only: the comparison
key keeps the product as stated (changing it would move every stored group file).

A warning, not a refusal: a store may already hold both spellings, and an environment of
the second is then no new harm. This module knows text only: callers bring the spellings
(:mod:`kistore.store.products` reads the stored ones; ``add`` warns, ``check`` warns of the
environments a range adds).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from .findings import WARNING, rule
from .folding import words

POINTER = "/spec/hardware/product"
"""Where an ExecutionEnvironment states its GPU product (the warning's JSON Pointer)."""

PRODUCT_SPELLED_DIFFERENTLY = rule(
    "KI229", "gpu-product-spelling", WARNING,
    "spell spec.hardware.product exactly as the store already does (the spelling named), "
    "in a new ExecutionEnvironment: runs on environments whose products differ only in "
    "case, spacing, punctuation, Unicode form, a leading vendor name or an ASCII look-alike "
    "are never ranked together")


LOOK_ALIKES = {"pcle": "pcie", "pci e": "pcie", "pcl e": "pcie"}
"""A folded word (or two) that is an ASCII look-alike or spacing of a product word -> that
word: ``PCle``, a lower-case ``l`` for the ``I`` of ``PCIe`` (the usual OCR or copy slip,
reviewer r90 F4). Only words no product spells otherwise."""

SIZE_UNITS = frozenset({"gb", "tb", "mb", "gib", "tib", "mib", "g"})
"""Memory-size words a number may be spaced from: ``80 GB`` is ``80GB``."""

_LETTER_O_IN_NUMBER = re.compile(r"(?<=[0-9])o+(?=[0-9]|[a-z]|$)")
"""A letter ``o`` (folded) after a digit of a model number: ``h1oo`` is ``h100``, ``mi3oox``
is ``mi300x``."""

_LETTERS = re.compile(r"[a-z]+")
_DIGITS_FIRST = re.compile(r"[0-9][0-9a-z]*")
_ENDS_IN_DIGIT = re.compile(r"[a-z0-9]*[0-9]")


def _model_words(parts: list[str]) -> list[str]:
    """Join the words of one model number that spacing or a hyphen split (reviewer r90 F4).

    ``b 200`` (``B-200``) is ``b200``: letters alone, then a word beginning with a digit;
    ``80 gb`` is ``80gb``: a number, then a size (:data:`SIZE_UNITS`); ``l40 s`` (``L40-S``)
    is ``l40s``: a word ending in a digit, then one letter. Nothing else is joined
    (``h100 nvl``, ``a100 80gb``, ``rtx a6000`` stay words apart).
    """
    out: list[str] = []
    for word in parts:
        last = out[-1] if out else ""
        if out and ((_LETTERS.fullmatch(last) and _DIGITS_FIRST.fullmatch(word)
                     and last not in VENDORS)
                    or (last.isdigit() and word in SIZE_UNITS)
                    or (_ENDS_IN_DIGIT.fullmatch(last) and len(word) == 1 and word.isalpha()
                        and word.isascii())):
            out[-1] = last + word
        else:
            out.append(word)
    return out


def product_key(product: str) -> str:
    """Return what two spellings of one GPU product share: NFKC, casefold, words, no vendor.

    :func:`kistore.core.folding.words`, the narrow one of the two folding policies (the
    other, :func:`kistore.core.provenance.spelled`'s, drops all but ``[a-z0-9]``; why they
    differ: :mod:`kistore.core.folding`), then a leading vendor's name dropped, then the
    product's own ASCII slips folded (reviewer r90 F4): look-alike words
    (:data:`LOOK_ALIKES`: ``PCle``), a letter ``o`` among a model number's digits (``H1OO``)
    and a model number split by spacing or a hyphen (:func:`_model_words`: ``B-200``,
    ``L40-S``, ``80 GB``). Never two products made one: ``H100``, ``H100 NVL``, ``H100
    PCIe``, ``H200``, ``GH200``, ``L40``, ``L40S``, ``A100 40GB``, ``A100 80GB``,
    ``MI300X``, ``MI300A``, ... keep keys apart (a test table holds them).

    Args:
        product: an ExecutionEnvironment's ``spec.hardware.product``.

    Returns:
        ``product`` in NFKC, case folded (NFKC again: folding may undo it), each run of
        whitespace or punctuation (but a ``.`` inside a word) one space, no space at either
        end (:func:`kistore.core.folding.words`), a first word of :data:`VENDORS` dropped,
        look-alikes and model-number spacing folded: ``"h100 80gb hbm3"`` for
        ``"NVIDIA H100  80GB HBM3 "``, ``"ＮＶＩＤＩＡ H100 80GB HBM3"``, ``"H100-80GB
        HBM3"`` and ``"NVIDIA H1OO 80 GB HBM3."``.
    """
    parts = words(product).split()
    if len(parts) > 1 and parts[0] in VENDORS:  # 'H100 PCIe' is NVIDIA's (reviewer r89 F7)
        parts = parts[1:]
    text = " ".join(_model_words([_LETTER_O_IN_NUMBER.sub(
        lambda m: "0" * len(m.group()), w) for w in parts]))
    for slip, word in LOOK_ALIKES.items():
        text = re.sub(rf"(?<!\S){slip}(?!\S)", word, text)
    return text


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


def product_variants(product: str, stored: Iterable[tuple[str, str]],
                     runs: Mapping[str, int] | None = None,
                     older: Collection[str] = ()) -> list[tuple[str, str]]:
    """Return the stored spellings that are variants of ``product`` but not ``product``.

    Args:
        product: the GPU product a new environment states.
        stored: ``(spelling, environment shown as KIND/NAME (digest))`` per stored
            environment (any order; the new environment itself may be among them).
        runs: how many stored runs each spelling's environments have (their group files,
            :func:`kistore.store.products.runs_by_product`); None: not counted.
        older: the spellings stored before the change judged (HEAD's, a range's base).

    Returns:
        One ``(spelling, environment)`` per distinct other spelling with the same
        :func:`product_key`, the first environment (sorted) stating it; the spelling to
        advise first (:func:`preference`: most runs, then most environments, then one
        stored before), never merely the first in code-point order (reviewer r90 F4: it
        steered a contributor to a one-run spelling). Empty when none.
    """
    key = product_key(product)
    stored = sorted(stored)
    found: dict[str, str] = {}
    for spelling, shown in stored:
        if spelling != product and spelling not in found and product_key(spelling) == key:
            found[spelling] = shown
    rank = preference(stored, runs, older)
    return sorted(found.items(), key=lambda item: rank(item[0]))


def preference(stored: Iterable[tuple[str, str]], runs: Mapping[str, int] | None,
               older: Collection[str]) -> Callable[[str], tuple[int, int, bool, str]]:
    """Return the sort key of spellings of one product, the one to advise first.

    Args:
        stored: ``(spelling, environment)`` per stored environment (counted per spelling).
        runs: stored runs per spelling (None: none counted).
        older: spellings stored before the change judged.

    Returns:
        A key ordering the spelling most stored runs use first, then the one most
        environments state, then one in ``older``; code-point order only between spellings
        equal in all three.
    """
    environments = Counter(spelling for spelling, _ in stored)
    counted = runs or {}
    return lambda s: (-counted.get(s, 0), -environments[s], s not in older, s)


def why_first(first: str, others: Iterable[str],
              rank: Callable[[str], tuple[int, int, bool, str]]) -> str:
    """Say why ``first`` is the spelling advised over ``others`` (:func:`preference`'s key).

    Returns:
        ``the store's most used spelling`` when more runs or environments use it than any
        other; ``used as much as another, and stored before`` when only its age decides;
        ``one of the spellings used alike`` when nothing does (code-point order chose).
    """
    mine, theirs = rank(first), [rank(s) for s in others]
    if all(mine[:2] < key[:2] for key in theirs):
        return "the store's most used spelling"
    if all(mine[:3] < key[:3] for key in theirs):
        return "used as much as another, and stored before"
    return "one of the spellings used alike"


def variant_message(product: str, variants: list[tuple[str, str]], keep: bool = False,
                    why: str = "the store's most used spelling") -> str:
    """Say that ``product`` is another spelling of products the store holds (KI229).

    Args:
        product: the new environment's GPU product.
        variants: what :func:`product_variants` returned (not empty), the spelling to
            advise first.
        keep: ``product`` itself is the spelling to advise (:func:`preference`): the advice
            is to keep it.
        why: why the spelling advised is (:func:`why_first`).

    Returns:
        One sentence naming each stored spelling and an environment stating it, and why it
        matters (the runs get another comparison key), advising the most used spelling.
    """
    shown = "; ".join(f"{spelling!r} ({environment})" for spelling, environment in variants)
    advice = f"keep {product!r}, {why}" if keep else f"use {variants[0][0]!r}, {why}"
    return (f"hardware.product {product!r} differs only in case, spacing, punctuation, Unicode "
            f"form, a leading vendor name or an ASCII look-alike from "
            f"what the store spells {shown}: its runs get another comparison key and are "
            f"never ranked with theirs; {advice}")
