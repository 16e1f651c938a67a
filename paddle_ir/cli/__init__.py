"""The `paddle-ir` command line: run, dump, check and ops (see `paddle-ir --help`)."""
