"""Citations (docs/design.md §7): the first-adding commit, permalinks, and the citation formats."""
