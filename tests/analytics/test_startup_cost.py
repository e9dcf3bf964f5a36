"""numpy is a dependency of analytics only: opening the store must not pay for it, and
analytics must still get the real module afterwards."""

from __future__ import annotations

import subprocess
import sys


def test_the_store_does_not_import_numpy_but_analytics_can():
    code = (
        "import sys; import pixiu_cli.kernel.store.database, sqlite_utils; "
        "assert 'numpy' not in sys.modules and 'pandas' not in sys.modules, 'eager numpy'; "
        "import pixiu_cli.market.analytics.engine, numpy; print(numpy.ones(2).sum())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2.0"
