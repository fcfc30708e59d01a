"""Which sheaf is installed and running, and from where."""
