"""Two mutation operators cosmic-ray lacks: statement deletion and return-value replacement.

cosmic-ray finds operators through provider plugins (`cosmic_ray.plugins.OPERATOR_PROVIDERS`);
`register()` adds these under the provider name `paddle-ir`, in this process only, so the
project needs no installed entry point. The runner executes mutants in-process (cosmic-ray's
local distributor), so the registration is seen by every mutant it applies.
"""

from __future__ import annotations

from cosmic_ray.operators.operator import Example, Operator
from parso.python.tree import Keyword

PROVIDER = "paddle-ir"

# Statement kinds whose deletion is a meaningful mutant: assignments (plain and augmented),
# bare calls (mutating methods, in-place numpy writes, registrations) and raises.
_DELETABLE = {"expr_stmt", "raise_stmt", "del_stmt"}


def _is_bare_call(node) -> bool:
    return (node.type in ("atom_expr", "power") and node.children[-1].type == "trailer"
            and node.children[-1].children[0] == "(")


class StatementDeletion(Operator):
    """Replace one simple statement (assignment, bare call, raise) with `pass`."""

    def mutation_positions(self, node):
        if node.parent is None or node.parent.type != "simple_stmt":
            return
        if node.type in _DELETABLE or _is_bare_call(node):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        assert index == 0
        return Keyword("pass", node.start_pos, prefix=node.get_first_leaf().prefix)

    @classmethod
    def examples(cls):
        return (
            Example("x = 1\n", "pass\n"),
            Example("f(x)\n", "pass\n"),
            Example("def f():\n    raise E('no')\n", "def f():\n    pass\n"),
        )


class ReturnValueReplacement(Operator):
    """Replace `return <expr>` with `return None` (skipped where the value is None already)."""

    def mutation_positions(self, node):
        if node.type == "return_stmt" and len(node.children) == 2:
            value = node.children[1]
            if not (value.type == "keyword" and value.value == "None"):
                yield (value.start_pos, value.end_pos)

    def mutate(self, node, index):
        assert index == 0
        value = node.children[1]
        node.children[1] = Keyword("None", value.start_pos, prefix=value.get_first_leaf().prefix)
        node.children[1].parent = node
        return node

    @classmethod
    def examples(cls):
        return (Example("def f():\n    return x + 1\n", "def f():\n    return None\n"),)


class Provider:
    """The operator-provider protocol: iterate names, look up classes by name."""

    _OPERATORS = {op.__name__: op for op in (StatementDeletion, ReturnValueReplacement)}

    def __iter__(self):
        return iter(self._OPERATORS)

    def __getitem__(self, name):
        return self._OPERATORS[name]


def register() -> None:
    import cosmic_ray.plugins

    cosmic_ray.plugins.OPERATOR_PROVIDERS.setdefault(PROVIDER, Provider())


def _self_check() -> None:
    """The operators' own examples, as cosmic-ray's operator tests run them."""
    from cosmic_ray.mutating import mutate_code

    for op in Provider._OPERATORS.values():
        for ex in op.examples():
            got = mutate_code(ex.pre_mutation_code, op(), ex.occurrence)
            assert got == ex.post_mutation_code, (op.__name__, ex.pre_mutation_code, got)
