"""Checkpoints: the model, YAML, the store, the builder, diffs, rendering, injection and triggers."""
