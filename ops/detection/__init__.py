"""Detection operators: box coding, prior boxes, NMS."""
