"""The derived index: names and query rows in SQLite under ``.git/kistore/``, never committed.

Deleting it loses nothing: it is rebuilt from the store.
"""
