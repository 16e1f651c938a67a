"""Parameter-server communication operators: send/recv and row-sharded splits."""
