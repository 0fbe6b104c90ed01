"""The UI-free live tracker and per-session insight the TUI and `watch` share."""
