"""One session followed over time: snapshots, quick glances from the tail, cost."""
