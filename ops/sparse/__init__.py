"""SelectedRows and CSR storage operators: retain, cast_storage, merge/split of SelectedRows."""
