"""Attestations: keys, DSSE envelopes, in-toto statements, trust, notes, evidence.

See docs/design.md §5.
"""
