"""The persistent index: what the readers learned about each transcript, kept under the user's cache dir."""
