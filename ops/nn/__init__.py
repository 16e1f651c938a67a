"""Neural-network operators: convolution, pooling, normalization, resizing, dropout, softmax."""
