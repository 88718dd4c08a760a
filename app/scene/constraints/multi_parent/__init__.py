"""The multi-parent constraint: plan, increments, scans, cache, steps and the solver."""
