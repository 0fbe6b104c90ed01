"""Language tools for capture: phrase matching, canonical tokens, values, the English-Serbian lexicon."""
