"""Math operators: activations, unary and binary math, matrix products, casts, comparisons."""
