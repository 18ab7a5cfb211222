"""What is published for one schedule version and kept current: snapshots, their documents and caches."""
