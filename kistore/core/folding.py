"""Unicode folding: how two spellings are taken for one, with the two policies kistore uses.

Pure (no I/O). Both policies start from :func:`folded`: NFKC (full-width letters,
ligatures, mathematical and circled letters, a non-breaking space read as their plain
forms), then case folded (Unicode ``casefold``, which lowers more than ``lower``: ``ß`` is
``ss``), then NFKC again (folding may leave a string that is no longer in NFKC). They
differ in what else a reader is taken to overlook, because they answer different
questions:

* :func:`words` (KI229, :func:`kistore.core.products.product_key`): are two GPU product
  names the *same* name? Runs of whitespace and punctuation (all but a ``.`` between two
  letters or digits, a version like ``2.0``; a trailing ``.`` is punctuation) count as one
  space, ends stripped: ``H100 PCIe``, ``H100-PCIe`` and ``H100_PCIe`` are one (reviewer
  r89 F7: each opened its own comparison group). Letters and digits of every script count as they
  are: it must never call two products one by their letters (``A100`` and ``A1OO``, a
  Cyrillic ``О``, stay two). The answer is a warning that names the spellings. The product
  rule folds a few ASCII look-alikes and model-number spacings on top of it, in its own
  domain (:func:`kistore.core.products.product_key`).
* :func:`ascii_alnum` (KI226, :func:`kistore.core.provenance.spelled`): does a value
  *name* a source (``kernelbench``) to a reader, whatever is put between its letters? Accents
  are split off (NFKD: ``é`` reads ``e``) and every character but ASCII letters and digits
  is dropped (separators, marks, letters of other scripts), so ``Kernel-Bench`` and
  ``kernel\u200bbench`` are ``kernelbench``. The answer refuses a run, and is wide on
  purpose: a claim hidden by separators is still a claim.

Not here, because they answer other questions: git's own path folding
(:mod:`kistore.core.git_names`, NFD and case as HFS+ and NTFS compare names), a name's slug
(:mod:`kistore.core.naming`), and the plain-text rules of identifying fields
(:mod:`kistore.core._plain_text`).
"""

from __future__ import annotations

import re
import unicodedata

_NOT_ASCII_ALNUM = re.compile("[^a-z0-9]+")


def folded(text: str) -> str:
    """Return ``text`` in NFKC, case folded, in NFKC again: what both policies start from.

    Args:
        text: any string.

    Returns:
        ``"ｎvidia ﬁ"`` -> ``"nvidia fi"``; whitespace and punctuation as they were.
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


_NOT_WORD = re.compile(r"(?:[^\w.]|_|(?<![^\W_])\.|\.(?![^\W_]))+")
"""Runs of whitespace and punctuation: characters that are no letter or digit, but a ``.``
between two (a version, ``2.0``); a ``.`` ending a word (``PCIe.``) is punctuation."""


def words(text: str) -> str:
    """Return :func:`folded` ``text`` with each run of whitespace or punctuation one space.

    The policy of KI229 (a product name spelled another way): see the module's docstring.
    ``.`` between two letters or digits is kept (a version, ``2.0``), any other is
    punctuation (``PCIe.``, a trailing period: reviewer r90 F4); ``_`` counts as punctuation.

    Args:
        text: any string (``"NVIDIA  H100-PCIe\u00a080GB "``).

    Returns:
        ``"nvidia h100 pcie 80gb"``, no space at either end.
    """
    return " ".join(_NOT_WORD.sub(" ", folded(text)).split())


def ascii_alnum(text: str) -> str:
    """Return the ASCII letters and digits of :func:`folded` ``text``, accents split off.

    The policy of KI226 (a value naming a source): see the module's docstring. NFKD of the
    folded form splits accents off (``é`` is ``e`` and a combining mark, dropped); NFKD of
    an NFKC string is NFKD of the string itself, so the second NFKC changes nothing here.

    Args:
        text: any string (``" Kernel-Bench"``, ``"ｋｅｒｎｅｌｂｅｎｃｈ"``).

    Returns:
        ``"kernelbench"``.
    """
    found = _ALNUM_OF.get(text)
    if found is None:  # two NFKC, a case fold, an NFKD and a substitution: ~1.5 us
        found = _NOT_ASCII_ALNUM.sub("", unicodedata.normalize("NFKD", folded(text)))
        if len(text) <= _ALNUM_KEPT_LENGTH:
            if len(_ALNUM_OF) >= _ALNUM_KEPT:
                _ALNUM_OF.clear()
            _ALNUM_OF[text] = found
    return found


_ALNUM_OF: dict[str, str] = {}
""":func:`ascii_alnum` of the short texts already folded (this process): ``verify`` folds a
run's ``sourceNative.source`` three times (KI209, KI232's claim, KI238's board), and the
sources of 100,000 runs are a handful of strings (docs/speed.md, ver99)."""
_ALNUM_KEPT = 4096
"""Most texts :data:`_ALNUM_OF` keeps (then it starts again)."""
_ALNUM_KEPT_LENGTH = 256
"""Longest text :data:`_ALNUM_OF` keeps: a long one is folded each time (no large key kept)."""
