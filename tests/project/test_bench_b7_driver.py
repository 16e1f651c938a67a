"""The bench driver's B7 plumbing: the exporting system is set up first, its absence skips
the case, and outputs are compared value by value against Paddle's."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from bench import report, run


class FakeWorker:
    """Answers the driver's requests like bench/worker.py, recording their order."""

    def __init__(self, name: str, log: list, output=None, files="f1"):
        self.name, self.cases, self.log = name, {"B7.x"}, log
        self.output, self.files = output, files

    def call(self, op: str, case: str, **kw) -> dict:
        self.log.append((self.name, op))
        if op == "setup":
            reply = {"check": {}, "fingerprint": "in", "first_ms": 1.0,
                     "info": {"model_files": self.files}}
            if self.output is not None:
                out = np.asarray(self.output, dtype=np.float32)
                reply["output"] = {"shape": list(out.shape),
                                   "values": out.astype(np.float64).ravel().tolist()}
            return reply
        if op == "time":
            return {"times": [0.5] * kw["reps"]}
        return {}


def _args(model_dir=None):
    return argparse.Namespace(settle=0.0, warmup=1, batch_seconds=0.1, max_reps=3, rounds=2,
                              model_dir=model_dir)


def test_exporter_is_set_up_first_and_outputs_are_compared():
    log: list = []
    ref = np.array([[2.0, -4.0], [0.5, 1.0]], dtype=np.float32)
    ours = ref.copy()
    ours[1, 0] += 0.002  # the largest |difference|
    workers = [FakeWorker("paddle-ir", log, ours), FakeWorker("paddle", log, ref)]
    result = run.run_case("B7.x", {"files_from": "paddle"}, workers, _args(), lambda m: None)
    setups = [name for name, op in log if op == "setup"]
    assert setups == ["paddle", "paddle-ir"]
    a = result["agreement"]["paddle-ir"]
    assert a["vs"] == "paddle"
    assert a["max_abs"] == pytest.approx(0.002, rel=1e-3)
    assert a["max_rel"] == pytest.approx(0.002 / 4.0, rel=1e-3)
    assert result["same_model_files"] is True
    # The report names the difference and the files' identity.
    notes = report.agreement_notes({"cases": {"B7.x": result}})
    assert notes == ["- B7.x: paddle-ir vs paddle, max |difference| of the outputs 0.002, "
                     "5.0e-04 relative to the largest |output|; the same model files"]


def test_different_files_and_shapes_are_reported():
    log: list = []
    workers = [FakeWorker("paddle-ir", log, np.zeros((2, 3)), files="f2"),
               FakeWorker("paddle", log, np.zeros((2, 2)), files="f1")]
    result = run.run_case("B7.x", {"files_from": "paddle"}, workers, _args(), lambda m: None)
    assert result["same_model_files"] is False
    assert result["agreement"]["paddle-ir"] == {"vs": "paddle", "shape": [2, 3],
                                                "reference_shape": [2, 2]}
    notes = report.agreement_notes({"cases": {"B7.x": result}})
    assert notes == ["- B7.x: paddle-ir's output has shape [2, 3], paddle's [2, 2]"]


def test_case_is_skipped_without_its_exporter_unless_a_model_dir_is_given():
    log: list = []
    messages: list = []
    workers = [FakeWorker("paddle-ir", log, np.ones((1, 2)))]
    result = run.run_case("B7.x", {"files_from": "paddle"}, workers, _args(), messages.append)
    assert result == {"systems": {}} and log == []
    assert "skipped: runs the model files paddle exports" in messages[0]
    # With --model-dir the files may already be there: paddle-ir runs them alone.
    result = run.run_case("B7.x", {"files_from": "paddle"}, workers, _args("/some/dir"),
                          messages.append)
    assert list(result["systems"]) == ["paddle-ir"] and result["agreement"] == {}
