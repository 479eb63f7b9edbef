"""The git layer: packs, tree diffs, git's index, work-tree writes and commits.

Knows git's formats and pygit2, nothing of manifests beyond the store's layout (core).
"""
