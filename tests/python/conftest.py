import os
import shutil
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("IBFSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))


@pytest.fixture
def source():
    return SOURCE


@pytest.fixture
def out(request):
    """A fresh folder for one test's outputs, under the build tree when ctest runs the tests."""
    base = Path(os.environ.get("IBFSIM_TEST_OUT_DIR", "/tmp/ibfsim-pytest"))
    folder = base / request.node.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder
