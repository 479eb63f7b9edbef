"""Attestations (DESIGN §5): keys, DSSE envelopes, in-toto statements, trust, notes, evidence."""
