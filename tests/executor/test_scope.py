"""Scopes: a tree where var() creates locally and find_var() walks up."""

import numpy as np

import paddle_ir as pir
from paddle_ir.executor import Scope


def test_var_creates_locally_and_find_var_walks_up():
    root = Scope()
    root.var("w").set(pir.LoDTensor(np.ones(2)))
    kid = root.new_scope()
    assert kid.find_var("w") is root.find_var("w")
    assert kid.find_local_var("w") is None
    local = kid.var("w")
    assert kid.find_var("w") is local and root.find_var("w") is not local
    assert root.find_var("nothing") is None


def test_holder_says_what_it_holds():
    scope = Scope()
    v = scope.var("x")
    assert v.kind is None and not v.is_initialized()
    v.set(pir.SelectedRows([1], np.ones((1, 2)), 3))
    assert v.kind == "SelectedRows"
    assert scope.var("t").get_tensor().shape == (0,)
    assert scope.var("t").kind == "LoDTensor"


def test_drop_kids():
    root = Scope()
    root.new_scope()
    root.new_scope()
    assert len(root.kids) == 2
    root.drop_kids()
    assert root.kids == []


def test_global_scope_and_guard():
    mine = Scope()
    with pir.scope_guard(mine):
        assert pir.global_scope() is mine
    assert pir.global_scope() is not mine
