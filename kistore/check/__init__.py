"""Checks of a store: pure rules, verify, history, policy, the pull-request gate.

See docs/design.md §4.
"""
