"""bench/zoo_peers.py's plumbing: the engines' environment and the zoo table's ratios."""

from __future__ import annotations

import math

from bench import zoo_peers


def _entry(ms: dict, failed=()):
    entry = {e: {"median_ms": v, "cpu_median_ms": v / 2, "peak_mb": 10.0}
             for e, v in ms.items()}
    for e in failed:
        entry[e] = {"error": "boom"}
    return entry


def test_table_gives_ratios_and_their_geometric_means():
    results = {"models": {
        "a": _entry({"paddle-ir": 6.0, "onnxruntime": 2.0, "paddle-inference": 3.0,
                     "paddle-executor": 12.0}),
        "b": _entry({"paddle-ir": 2.0, "onnxruntime": 1.0, "paddle-inference": 4.0},
                    failed=["paddle-executor"]),
    }}
    text = zoo_peers.table(results)
    assert "| a | 6 (10) | 2 (10) | 3 (10) | 12 (10) | 3.00x | 2.00x |" in text
    assert "| b | 2 (10) | 1 (10) | 4 (10) | failed | 2.00x | 0.50x |" in text
    assert f"**{math.sqrt(6):.2f}x** | **{math.sqrt(1):.2f}x**" in text
    assert "| a | 3 (10) | 1 (10)" in zoo_peers.table(results, "cpu_median_ms")


def test_every_engine_gets_old_ir_mode_and_the_thread_count(monkeypatch):
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    env = zoo_peers._env(1)
    assert env["FLAGS_enable_pir_api"] == "0" and env["POLYGRAPHY_AUTOINSTALL_DEPS"] == "0"
    assert env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == "1"
    assert env["OPENBLAS_CORETYPE"] == "Haswell"  # the machine's, unless asked otherwise
    assert "OPENBLAS_CORETYPE" not in zoo_peers._env(1, "")
    assert zoo_peers._env(0, "SkylakeX")["OPENBLAS_CORETYPE"] == "SkylakeX"
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert "OMP_NUM_THREADS" not in zoo_peers._env(0)  # 0: each engine's own default
