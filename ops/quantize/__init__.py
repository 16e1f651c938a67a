"""Quantization operators: the fake quantize/dequantize ops of quantization-aware training
and PaddleSlim's exports (fake_quantize_op.cc, fake_dequantize_op.cc, quantize_linear_op.cc)."""
