import os
import shutil
from pathlib import Path

import pytest

# In the sanitizer build (IBFSIM_SANITIZE) this interpreter runs with the sanitizer runtime preloaded
# for the extension module; the ibfsim commands it starts carry their own, and a process with two
# refuses to start: they must not inherit the preload.
if os.environ.get("IBFSIM_SANITIZER_PRELOAD"):
    os.environ.pop("LD_PRELOAD", None)

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
