"""Configuration: the config file, compaction settings and the LLM settings value (no httpx import)."""
