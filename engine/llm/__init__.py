"""The optional LLM client, summaries and enrichment (the only place httpx is imported)."""
