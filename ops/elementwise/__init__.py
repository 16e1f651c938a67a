"""Elementwise binary operators with Fluid's axis broadcasting (dense and SelectedRows)."""
