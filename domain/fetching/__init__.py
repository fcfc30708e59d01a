"""Rules of fetching: which addresses may be reached, one spelling per URL, retries, what to ask
for."""
