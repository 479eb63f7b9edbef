"""Citations (docs/design.md §7): the commit that first added an object, permalinks, formats.

:mod:`.citation` finds the facts (one walk of history); :mod:`.formats` writes them as
text, BibTeX, CSL-JSON and CITATION.cff.
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from .citation import Citation as Citation
    from .citation import cite as cite
    from .citation import short_citation as short_citation
    from .formats import FORMATS as FORMATS
    from .formats import render as render

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "citation": ["Citation", "cite", "short_citation"],
    "formats": ["FORMATS", "render"],
})
