"""Tensor creation, shape, indexing and layout operators (Paddle's tensor ops)."""
