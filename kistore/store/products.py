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

import json
from collections import Counter
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
    preference,
    product_variants,
    variant_message,
    why_first,
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


def runs_by_product(view: View) -> Counter[str]:
    """Return how many runs of a tree each GPU product spelling has, from its group files.

    Every run whose references resolve has a group file under its comparison key's
    directory (``store/groups/sha256/XX/K/RUN``), holding the key object whose
    ``hardwareProduct`` is its environment's product as spelled: one listing per group
    and one read of its first file. Read only when KI229 has variants to advise among.

    Args:
        view: the tree (a commit, or the work tree).

    Returns:
        Runs per ``hardwareProduct`` spelling; a group file unreadable, damaged or past
        1 MiB is left out (``verify`` says what is wrong with it).
    """
    counts: Counter[str] = Counter()
    for shard in view.list_dir(layout.GROUPS_DIR):
        for key in view.list_dir(f"{layout.GROUPS_DIR}/{shard}"):
            group = f"{layout.GROUPS_DIR}/{shard}/{key}"
            runs = sorted(view.list_dir(group))
            try:
                data = view.read(f"{group}/{runs[0]}", _GROUP_FILE_BYTES) if runs else None
                product = json.loads(data).get("hardwareProduct") if data else None
            except (FileTooLarge, ValueError, AttributeError):
                continue
            if isinstance(product, str):
                counts[product] += len(runs)
    return counts


_GROUP_FILE_BYTES = 1 << 20
"""The most bytes of a group file read (group files are read up to 1 MiB, KI106)."""


class SpellingAdvice:
    """KI229's variants of a product among a tree's spellings, the most used first.

    Runs and environments per spelling (:func:`runs_by_product`) are counted in the
    tree before the change only (``counted``): a change bringing 300 runs on a misspelling
    was told to keep it (reviewer r90b F8). They and the older tree's spellings are read
    only when a product has variants, once per instance.

    Args:
        view: the tree judged (a range's head, an add's work tree).
        older: the tree before the change (a range's base, HEAD before an add), or None.
        extra: more ``(spelling, environment shown)`` pairs (an add's own environments,
            never counted).
        counted: the tree whose runs and environments weigh the spellings (a range's
            base); None: ``view`` (an add's work tree, before the add writes).
    """

    def __init__(self, view: View, older: View | None,
                 extra: Sequence[tuple[str, str]] = (), counted: View | None = None) -> None:
        self.view, self.older, self.counted = view, older, counted
        self.stored = [(p, shown) for p, shown, _ in stored_products(view)]
        self.spelled = self.stored + list(extra)
        self._weights: tuple[list[tuple[str, str]], Counter[str], set[str]] | None = None

    def variants(self, product: str) -> tuple[list[tuple[str, str]], bool, str]:
        """Return ``product``'s variants, whether to keep ``product`` itself, and why.

        Returns:
            :func:`kistore.core.products.product_variants` weighed by the counted tree's
            runs and environments and the older tree's spellings (the one to advise
            first); True when ``product`` ranks before each of them
            (:func:`kistore.core.products.preference`); why the spelling advised is
            (:func:`kistore.core.products.why_first`). A damaged store
            file is left out of the counts.
        """
        if not product_variants(product, self.spelled):
            return [], False, ""
        if self._weights is None:
            older = {p for p, _, _ in stored_products(self.older)} if self.older else set()
            counted = self.view if self.counted is None else self.counted
            base = self.stored if self.counted is None else [
                (p, shown) for p, shown, _ in stored_products(counted)]
            self._weights = base, runs_by_product(counted), older
        base, runs, older = self._weights
        rank = preference(base, runs, older)
        found = sorted(product_variants(product, self.spelled), key=lambda v: rank(v[0]))
        spellings = [product, *(s for s, _ in found)]
        first = min(spellings, key=rank)
        return found, first == product, why_first(first, [s for s in spellings if s != first],
                                                  rank)


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
    products = {m.digest: environment_product(m.spec) for m in new}
    advice = SpellingAdvice(store.view(None), None if store.repo.head_is_unborn
                            else store.view("HEAD"),
                            [(p, named(KIND, m.name, str(m.digest))) for m in new
                             if (p := products[m.digest]) is not None])
    problems: list[tuple[Digest, KistoreError]] = []
    for m in new:
        product = products[m.digest]
        if product is None:
            continue  # the schema requires it: that check says so
        variants, keep, why = advice.variants(product)
        if variants:
            problems.append((m.digest, AdmissionWarning(
                f"{variant_message(product, variants, keep, why)} "
                f"({PRODUCT_SPELLED_DIFFERENTLY.id}: "
                "added all the same; `check` warns too)", pointer=POINTER)))
    return problems
