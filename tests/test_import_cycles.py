"""No module of tumble imports itself back through others: the package's import graph, with the
imports inside functions and under ``if TYPE_CHECKING:`` (which import-linter's layer contracts
leave out), has no cycle."""

from collections.abc import Mapping, Set

import grimp


def cycles(imports: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module of the graph ``imports``
    (module -> the modules it imports), each sorted, in sorted order (Tarjan 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(imports.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(imports):
        if v not in index:
            visit(v)
    return sorted(found)


def test_cycles_finds_a_circle_and_only_it():
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(imports) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle():
    graph = grimp.build_graph("tumble", exclude_type_checking_imports=False, cache_dir=None)
    imports = {
        m: {i for i in graph.find_modules_directly_imported_by(m) if i.split(".")[0] == "tumble"}
        for m in graph.modules
        if m.split(".")[0] == "tumble"
    }
    assert len(imports) > 100  # the whole package was read
    assert cycles(imports) == []
