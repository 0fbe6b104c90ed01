"""ctxscope engine: UI-free readers, context accounting, checkpoints and compaction for agent sessions."""
