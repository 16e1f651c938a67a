"""The core layer: dtypes, errors, values (LoDTensor, SelectedRows) and files.

Nothing here knows about operators, the builder or the executor.
"""
