"""The pure core: bytes, digests, schemas and manifests; no git, no disk state.

Nothing here imports another kistore package, pygit2, cryptography, click or sqlite3
(pyproject's layer contract checks it). Modules:

* :mod:`.errors` -- every exception (``FILE[:LINE:COL]:/pointer: message``);
* :mod:`.canonical` -- the strict parser and RFC 8785 bytes, the only producer of hashed or
  signed bytes; :mod:`.canonical_fast` -- its compiled fast path, used only where provably
  the same;
* :mod:`.digest` -- ``sha256:<hex>`` values and prefixes;
* :mod:`.schema` -- ``schemas/*.json`` (JSON Schema draft 2020-12), findings with pointers;
* :mod:`.model` -- the Manifest value; :mod:`.layout` -- where each file lives;
* :mod:`.findings` -- findings and rule ids; :mod:`.gitattributes` -- the KI113 guard;
* :mod:`.comparison` -- the comparison key of a run; :mod:`.workers` -- forked workers;
  :mod:`.signals` -- handlers installed, never over a signal the parent left ignored;
* :mod:`.settings` -- the tables of ``kistore.toml`` and the ``[cite]`` rules.
"""

from typing import TYPE_CHECKING

from .._exports import lazy_exports

if TYPE_CHECKING:  # pragma: no cover - typing only; at run time each name loads on first use
    from .comparison import comparison_key as comparison_key
    from .comparison import key_object as key_object
    from .digest import Digest as Digest
    from .digest import is_digest as is_digest
    from .digest import match_prefix as match_prefix
    from .digest import parse_prefix as parse_prefix
    from .errors import CanonicalFormError as CanonicalFormError
    from .errors import ConflictError as ConflictError
    from .errors import EncodingError as EncodingError
    from .errors import InputError as InputError
    from .errors import KistoreError as KistoreError
    from .errors import MetadataConflictError as MetadataConflictError
    from .errors import MultipleErrors as MultipleErrors
    from .errors import ParseError as ParseError
    from .errors import ResolutionError as ResolutionError
    from .errors import StoreStateError as StoreStateError
    from .errors import TrailingDataError as TrailingDataError
    from .errors import VerificationError as VerificationError
    from .findings import ERROR as ERROR
    from .findings import INFO as INFO
    from .findings import WARNING as WARNING
    from .findings import Finding as Finding
    from .findings import exit_code as exit_code
    from .findings import rule as rule
    from .gitattributes import check_gitattributes as check_gitattributes
    from .model import REFERENCE_FIELDS as REFERENCE_FIELDS
    from .model import Manifest as Manifest
    from .schema import API_VERSION as API_VERSION
    from .schema import KINDS as KINDS
    from .schema import check_document as check_document
    from .schema import check_manifest as check_manifest

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "comparison": ["comparison_key", "key_object"],
    "digest": ["Digest", "is_digest", "match_prefix", "parse_prefix"],
    "errors": [
        "CanonicalFormError", "ConflictError", "EncodingError", "InputError", "KistoreError",
        "MetadataConflictError", "MultipleErrors", "ParseError", "ResolutionError",
        "StoreStateError", "TrailingDataError", "VerificationError"
    ],
    "findings": ["ERROR", "Finding", "INFO", "WARNING", "exit_code", "rule"],
    "gitattributes": ["check_gitattributes"],
    "model": ["Manifest", "REFERENCE_FIELDS"],
    "schema": ["API_VERSION", "KINDS", "check_document", "check_manifest"],
})
