"""Reading a program without running it: the checker, build-time inference
over a loaded program, graphviz."""
