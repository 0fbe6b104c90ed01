"""The simulated agent behind `ctxscope demo` and the benchmarks: never imported by engine/."""
