"""A throwaway PostgreSQL server the test itself stops and starts: a cluster made with the installed
PostgreSQL binaries (``initdb``/``pg_ctl`` under ``/usr/lib/postgresql/*/bin``) in a temporary
directory, listening on a free loopback port, trust authentication. Run as the ``postgres`` user when
the tests run as root (``initdb`` refuses root). Never touches the machine's own server.

Without the binaries the test skips, saying why (fails under ``CI=true``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers import free_port
from tests.pg import need


def _bin_dir() -> Path | None:
    """The newest installed PostgreSQL's bin directory with ``initdb`` and ``pg_ctl``, or None."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), reverse=True)
    return next((d for d in found if (d / "initdb").exists() and (d / "pg_ctl").exists()), None)


class Cluster:
    """A PostgreSQL cluster in ``root`` on ``port``; :meth:`start`, :meth:`stop`, :attr:`url`."""

    def __init__(self, bin_dir: Path, root: Path, port: int) -> None:
        self.bin_dir, self.root, self.port = bin_dir, root, port
        self.data = root / "data"
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres"

    def _run(self, *args: str) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "start")

    def stop(self) -> None:
        """Fast shut-down: every connection is closed, the server exits."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A started :class:`Cluster`, stopped and removed after the block."""
    bin_dir = _bin_dir()
    if bin_dir is None:
        need("PostgreSQL binaries", "no initdb/pg_ctl under /usr/lib/postgresql/*/bin")
        raise AssertionError("unreachable")
    root = Path(tempfile.mkdtemp(prefix="vent-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    cluster = Cluster(bin_dir, root, free_port())
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped by the test
            cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
