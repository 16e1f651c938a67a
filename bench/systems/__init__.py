"""One module per benchmarked system; each maps case ids to case classes (`CASES`).

A case class builds everything in its constructor (untimed), `step()` is one
timed repetition, `check()` describes the state after the first step, and
`fingerprint` hashes the input data it was given (bench/cases.py).
"""
