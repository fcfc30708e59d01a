"""The store as the use cases see it: reading back what it holds, removing it, where staged
artifacts live, and blob collection that never takes what a commit relies on."""
