"""ctxscope benchmarks: run `python -m bench` (see bench/__main__.py)."""
