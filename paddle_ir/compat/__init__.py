"""Fluid 1.x names that exist only for Fluid programs: top-level layers, compiler,
average, evaluator, contrib."""
