"""A manifest whose metadata file is broken: its name, and a template to write it again.

``kistore cat --manifest`` of such a manifest prints its intact object with metadata, the
form ``kistore add --update-metadata`` takes. The name comes from the names file
(``store/names/KIND/XX/NAME``, the store's word on a name, which never moves once
committed), not from the broken file, which may be cut short (no name) or say two
(a duplicate key: the last would win). The rest of the metadata comes from the last
committed version of the file that parses (:func:`kistore.store.landed.last_measure`):
a file cut short keeps nothing of its labels and annotations (cat97 left), which the
committed version still holds. Error paths only: the CLI calls :func:`manifest_template`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..core import canonical, layout
from ..core.digest import Digest
from ..core.errors import KistoreError
from ..core.model import lenient_object, name_in
from ..core.schema import KINDS

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ._store import Store
    from ._views import View


class Template(NamedTuple):
    """A broken manifest's template and what a warning says of it.

    Attributes:
        document: ``{apiVersion, kind, metadata, spec}``: the object as stored (its bytes
            re-hashed) and the metadata, holding the name found (none when none is).
        told: a clause for the warning, after "printed anyway: the object as stored, ":
            where the metadata and the name came from, and what to do before the add.
    """

    document: dict[str, Any]
    told: str


def manifest_template(store: Store, digest: Digest, at: str | None,
                      named: str | None) -> Template:
    """Return the template of ``digest``'s manifest, whose metadata file does not parse.

    Args:
        store: the store read.
        digest: the manifest.
        at: the revision read (None: the work tree).
        named: the name the person typed (``KIND/NAME``, resolved through its names file:
            :meth:`kistore.store.View.named`), or None (a digest).

    Returns:
        The template: the metadata is the last committed version of the file that parses
        (``at``'s own, else earlier along its first-parent history; HEAD's for the work
        tree), else the broken file as far as it parses leniently; its ``name`` is
        :func:`stored_name`'s.

    Raises:
        VerificationError, ResolutionError: the object's own bytes are missing or corrupt.
    """
    view = store.view(at)
    path = layout.metadata_path(digest)
    data = view.object_bytes(digest)  # re-hashed: a corrupt object is still refused
    obj = canonical.loads(data, file=layout.object_path(digest))
    broken = lenient_object(view.read(path))
    name, whence = stored_name(view, digest, obj.get("kind"), broken, named)
    landed = _last_parsing(store, at, path)
    base = landed[1] if landed is not None else broken
    meta = {k: v for k, v in base.items() if k != "name"}
    if name is not None:
        meta = {"name": name, **meta}
    if landed is not None:
        source = (f"with the metadata of commit {landed[0][:12]}, the last version of the "
                  "file that parses")
        after = "; edit it as you mean it, then `kistore add --update-metadata FILE`"
    else:
        source = "with the metadata as far as it parses"
        after = "; fill in what is missing before `kistore add --update-metadata FILE`"
    if at is None and view.metadata_restorable(digest):
        after = ""  # the checkout repairs it: the restore advice says so, alone
    return Template({"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
                     "metadata": meta, "spec": obj.get("spec")}, source + whence + after)


def _last_parsing(store: Store, at: str | None, path: str) -> tuple[str, dict[str, Any]] | None:
    """Return ``(commit, metadata)`` of the last committed version of ``path`` that parses.

    Along the first-parent history of ``at`` (HEAD for the work tree). None when no version
    does, there is no commit, or the history cannot be read (a template then comes from the
    broken file: this is an error path's help, never a second error).
    """
    # Lazy: git's path-limited log, on this error path only.
    from .landed import last_measure

    try:
        found = last_measure(store.repo, at or "HEAD", path)
    except (KistoreError, OSError):
        return None
    return None if found is None else (found.commit, found.doc)


def stored_name(view: View, digest: Digest, kind: Any, metadata: dict[str, Any],
                named: str | None) -> tuple[str | None, str]:
    """Return the name of a manifest whose metadata file is broken, and where it was found.

    The names file (``store/names/KIND/XX/NAME``, holding the digest) is the store's word
    on a name, which never moves once committed; a metadata file cut short says none, and
    one with a duplicate ``name`` the last (reviewer last96 and break96: the template
    said ``"name": ""`` or another name). Looked for in that order: the name typed
    (``named``, its names file already read by the resolution), the name the broken file
    reads as (one names file), then every names file of ``kind`` (O(names of the kind),
    :meth:`kistore.store.View.names_files_of`).

    Args:
        view: the view read.
        digest: the manifest.
        kind: the object's ``kind`` as stored (anything: a kind not known finds no file).
        metadata: the broken file as far as it parses (:func:`kistore.core.model.
            lenient_object`).
        named: the name typed (``KIND/NAME``), or None.

    Returns:
        ``(name, whence)``: the name (None when no names file holds the digest, or
        several do, and the file says none) and a clause for the warning, starting with
        "; " (empty when the file's own name is the names file's). Raises nothing but
        what reading the view raises.
    """
    read = name_in(metadata)
    if named is not None:
        found = [layout.name_path(kind, named)]
    elif isinstance(kind, str) and kind in KINDS:
        own = layout.name_path(kind, read) if read is not None and layout.is_name(read) \
            else None
        found = [own] if own is not None and layout.digest_from_record(
            view.read(own) or b"") == digest else view.names_files_of(kind, digest)
    else:
        found = []
    if len(found) == 1:
        name = found[0].rpartition("/")[2]
        if read == name:
            return name, ""
        return name, (f"; the name is its names file's, {found[0]}" + (
            f" (the broken file reads {read!r})" if read is not None else ""))
    holding = "no names file holds" if not found else f"{len(found)} names files hold"
    if read is not None:
        return read, f"; the name is the broken file's: {holding} this digest"
    return None, (f"; no name: the metadata file holds none and {holding} this digest"
                  + (f" ({', '.join(found)})" if found else "")
                  + ": write \"name\" into metadata, the name the manifest was added under")
