"""paddle-ir's own program (.pb) and parameter files, below io/ and paddle_format/."""
