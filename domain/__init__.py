"""sheaf's pure core: value objects and rules that do no I/O."""
