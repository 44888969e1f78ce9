"""The knowledge base of failures: the store, fingerprints, labels, unknowns, and the corpus check."""
