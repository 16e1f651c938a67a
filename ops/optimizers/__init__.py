"""Optimizer update operators (Paddle's operators/optimizers), dense and SelectedRows kernels."""
