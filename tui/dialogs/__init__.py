"""Modal dialogs: a confirmation with a live preview before anything is written."""
