"""LoD sequence operators (Paddle's operators/sequence_ops): pool, conv, expand, pad, slice ..."""
