"""Every port stays small: one concern, at most eight methods."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Protocol

import sheaf.application.ports as ports


def test_no_port_has_more_than_eight_methods() -> None:
    found = {}
    for module_info in pkgutil.iter_modules(ports.__path__):
        module = importlib.import_module(f"{ports.__name__}.{module_info.name}")
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__ and \
                    Protocol in getattr(value, "__mro__", ()) and value is not Protocol:
                found[name] = [n for n, m in vars(value).items()
                               if (callable(m) and not n.startswith("_"))
                               or n in ("__aenter__", "__aexit__")]
    assert {"UnitOfWork", "Catalogue", "SearchIndex", "SpacePolicies", "AnswerCache"} <= set(found)
    assert "KnowledgeStore" not in found
    assert {name: len(methods) for name, methods in found.items() if len(methods) > 8} == {}
