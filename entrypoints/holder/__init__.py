"""Who holds a store, and reaching it from another sheaf process (ADR-0022)."""
