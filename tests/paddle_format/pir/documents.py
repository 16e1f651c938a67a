"""PIR JSON documents written by hand, in the encoding Paddle 3.3 writes (the fixtures in
tests/fixtures/paddle_pir/ are Paddle's own): for one-op programs and hostile variants."""

from __future__ import annotations

import json

import numpy as np

ELEMENTS = {np.dtype("float32"): "0.t_f32", np.dtype("float64"): "0.t_f64",
            np.dtype("int32"): "0.t_i32", np.dtype("int64"): "0.t_i64",
            np.dtype("bool"): "0.t_bool", np.dtype("uint8"): "0.t_ui8"}
DTYPES = {np.dtype("float32"): "float32", np.dtype("float64"): "float64",
          np.dtype("int32"): "int32", np.dtype("int64"): "int64", np.dtype("bool"): "bool"}


def tensor_type(dtype, dims) -> dict:
    return {"#": "0.t_dtensor", "D": [{"#": ELEMENTS[np.dtype(dtype)]}, list(dims), "NCHW",
                                      [], 0]}


def attr(name: str, kind: str, value) -> dict:
    """kind: a_bool, a_i32, a_i64, a_f32, a_f64, a_str, a_intarray, a_dtype, ints, floats."""
    if kind == "ints":
        return {"N": name, "AT": {"#": "0.a_array",
                                  "D": [{"#": "0.a_i32", "D": v} for v in value]}}
    if kind == "floats":
        return {"N": name, "AT": {"#": "0.a_array",
                                  "D": [{"#": "0.a_f32", "D": v} for v in value]}}
    dialect = "1" if kind in ("a_intarray", "a_dtype") else "0"
    return {"N": name, "AT": {"#": f"{dialect}.{kind}", "D": value}}


class Doc:
    """A program under construction: values are numbered from 1, as Paddle numbers them."""

    def __init__(self, version: int = 4):
        self.version = version
        self.ops: list[dict] = []
        self.next_id = 1
        self.fetched = 0

    def _value(self, dtype, dims) -> dict:
        value = {"%": self.next_id, "TT": tensor_type(dtype, dims)}
        self.next_id += 1
        return value

    def param(self, name: str, array: np.ndarray) -> int:
        out = self._value(array.dtype, array.shape)
        self.ops.append({"#": "p", "A": [0, 1, 1, name], "DA": [], "O": out,
                         "OA": [1, 0, 1], "QA": []})
        return out["%"]

    def data(self, name: str, dtype, dims) -> int:
        out = self._value(dtype, dims)
        self.ops.append({"#": "1.data", "A": [
            attr("name", "a_str", name), attr("shape", "a_intarray", list(dims)),
            attr("dtype", "a_dtype", DTYPES[np.dtype(dtype)]),
            {"N": "place", "AT": {"#": "1.a_place", "D": [0, 0, ""]}}], "I": [], "O": [out]})
        return out["%"]

    def op(self, name: str, operands, results, attrs=()) -> list[int]:
        """results: (dtype, dims) per result, or ("vec", [(dtype, dims), ...])."""
        outs = []
        for dtype, dims in results:
            if dtype == "vec":
                outs.append({"%": self.next_id, "TT": {"#": "0.t_vec", "D": [
                    tensor_type(d, s) for d, s in dims]}})
                self.next_id += 1
            else:
                outs.append(self._value(dtype, dims))
        self.ops.append({"#": name, "I": [{"%": i} for i in operands], "O": outs,
                         "A": list(attrs)})
        return [o["%"] for o in outs]

    def full(self, value, dtype="float32", shape=(1,)) -> int:
        return self.op("1.full", [], [(dtype, shape)], [
            attr("shape", "a_intarray", list(shape)), attr("value", "a_f64", float(value)),
            attr("dtype", "a_dtype", DTYPES[np.dtype(dtype)])])[0]

    def int_array(self, values) -> int:
        return self.op("1.full_int_array", [], [("int64", (len(values),))], [
            {"N": "value", "AT": {"#": "0.a_array",
                                  "D": [{"#": "0.a_i64", "D": v} for v in values]}},
            attr("dtype", "a_dtype", "int64")])[0]

    def combine(self, ids, types) -> int:
        return self.op("0.combine", ids, [("vec", types)])[0]

    def fetch(self, value: int, dtype, dims) -> None:
        self.op("1.fetch", [value], [(dtype, dims)], [
            attr("name", "a_str", f"fetch_name_{self.fetched}"),
            attr("col", "a_i32", self.fetched)])
        self.fetched += 1

    def document(self) -> dict:
        return {"base_code": {"magic": "pir", "trainable": True, "version": self.version},
                "program": {"regions": [{"#": "region_0", "blocks": [
                    {"#": "block_0", "args": [], "ops": self.ops}]}]}}

    def bytes(self) -> bytes:
        return json.dumps(self.document()).encode()
