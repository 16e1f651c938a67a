"""Metric operators: accuracy, auc, chunk_eval, mean_iou."""
