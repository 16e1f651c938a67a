"""Program-to-program passes: ops appended (backward, clip, regularizer) or removed (prune)."""
