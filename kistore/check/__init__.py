"""Checks of a store (DESIGN §4): pure rules, verify, history, policy, the pull-request gate."""
