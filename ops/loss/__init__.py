"""Loss operators: cross entropy, sigmoid cross entropy, sampled and structured losses."""
