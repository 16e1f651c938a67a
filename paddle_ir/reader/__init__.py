"""Feeding a program from Python: DataFeeder, DataLoader/PyReader and the reader decorators."""
