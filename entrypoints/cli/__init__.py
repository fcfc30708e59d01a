"""The `sheaf` command line."""
