"""The pure core: bytes, digests, schemas and manifests, with no git and no disk state.

Everything above this package builds on it; nothing here imports another kistore package.
"""
