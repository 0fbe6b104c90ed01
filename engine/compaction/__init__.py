"""Compaction: plans, the planner, layers, the summarizer, archives, degradation, controllers, auto-compaction."""
