"""Control flow (Paddle's operators/controlflow): conditional_block, while, tensor arrays,
rank tables."""
