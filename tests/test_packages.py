"""The tool packages export their public names without importing heavy libraries at package import."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PACKAGES = ["tools.metadata", "tools.geometry", "tools.views", "tools.perception", "tools.regions"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves(package):
    module = importlib.import_module(package)
    assert module.__all__, f"{package} exports nothing"
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"


@pytest.mark.parametrize("package", PACKAGES)
def test_an_unknown_name_is_an_attribute_error(package):
    with pytest.raises(AttributeError, match="no_such_name"):
        getattr(importlib.import_module(package), "no_such_name")


def test_importing_the_packages_loads_no_model_library():
    code = ("import sys; " + "; ".join(f"import {p}" for p in PACKAGES)
            + "; print(sorted(m for m in ('torch', 'ultralytics', 'transformers', 'open3d', 'kornia', 'onnxruntime')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
