"""A real PostgreSQL server for tests: Debian's ``postgresql`` binaries, ``initdb`` and
``pg_ctl`` in a temporary folder, listening on a unix socket there only.

PostgreSQL refuses to run as root (and CI runs as root), so under root the server is run as
``nobody`` (``setpriv``), its folder owned by that user. Without the binaries the tests that
need it are skipped, saying so; the README's test command installs them.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

PASSWORD = "s3cret-pw"
USER = "auditor"


def binaries() -> Path | None:
    """The folder of initdb / pg_ctl (newest Debian version), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    return Path(which).parent if which else None


class Server:
    """One server: ``url(db)`` names a database on it (no password in it)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix="turnscope-pg-"))
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            import pwd
            nobody = pwd.getpwnam("nobody")
            os.chown(self.dir, nobody.pw_uid, nobody.pw_gid)
            self.as_user = ["setpriv", f"--reuid={nobody.pw_uid}",
                            f"--regid={nobody.pw_gid}", "--clear-groups"]
        self.data = self.dir / "data"
        self.port = 5432 + os.getpid() % 1000

    def _run(self, *args: str, input: str | None = None) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, text=True,
                       input=input, cwd=self.dir, timeout=120)

    def start(self) -> None:
        pwfile = self.dir / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.as_user:
            import pwd
            nobody = pwd.getpwnam("nobody")
            os.chown(pwfile, nobody.pw_uid, nobody.pw_gid)
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", USER,
                  "--auth=scram-sha-256", f"--pwfile={pwfile}", "-E", "UTF8", "--no-sync")
        opts = (f"-k {self.dir} -c listen_addresses='' -p {self.port} -c fsync=off "
                "-c shared_buffers=16MB -c max_connections=20")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", opts, "-w",
                  "-l", str(self.dir / "log"), "start")

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://{USER}@/{db}?host={self.dir}&port={self.port}"

    def url_with_password(self, db: str = "postgres") -> str:
        return f"postgresql://{USER}:{PASSWORD}@/{db}?host={self.dir}&port={self.port}"
