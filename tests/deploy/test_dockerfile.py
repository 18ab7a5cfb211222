"""deploy/Dockerfile, checked by running its steps without Docker (no Docker daemon, buildah or
podman can build it here: the base image cannot be fetched, only PyPI, Debian and npm are
reachable). What each step becomes:

- the base image's Python (/usr/local): a fresh virtual environment of Debian's python3.11, shared
  by both stages as the one base image is; the pyenv Python under /root cannot be run by the
  unprivileged user;
- build stage: its COPY lines copy from the repository into a /src folder, and its RUN line runs as
  written there, /install and /usr/local mapped to folders here (pip fetches from PyPI);
- runtime stage: `COPY --from=build` copies only the build's /install into the base's /usr/local;
  the `useradd` line is read for its uid and home, and that uid is used through setpriv without
  an /etc/passwd entry (a real useradd would collide between test runs sharing this machine); the
  home folder is made and given to that uid, as --create-home does;
- ENV, USER and WORKDIR become the process's environment, uid and folder; CMD runs as written, its
  port (and the health check's) moved to a free one and its address to loopback;
- HEALTHCHECK's command runs as written against that server: 0 while it serves, not 0 once stopped.

Needs root to switch users (it is, on CI and the development machines); skipped elsewhere, failed on CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.helpers.dockerfile_steps import PathMap, Stage, env_pairs, exec_form, healthcheck, parse
from tests.helpers.serve_process import free_port

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
STAGES = parse(DOCKERFILE.read_text(encoding="utf-8"))
BASE_PYTHON = "/usr/bin/python3.11"  # Debian's (tests/install-system-deps.sh installs its venv module)
IMAGE_PORT = "8080"


def _useradd(stage: Stage) -> tuple[int, str]:
    """The uid and home of the runtime stage's `RUN useradd ...` line."""
    (line,) = [args for args in stage.all("RUN") if args.startswith("useradd ")]
    words = line.split()
    return int(words[words.index("--uid") + 1]), words[words.index("--home-dir") + 1]


def test_the_dockerfile_is_two_stages_from_one_image_with_a_user_and_a_health_check() -> None:
    build, runtime = STAGES
    uid, home = _useradd(runtime)
    options, command = healthcheck(runtime.one("HEALTHCHECK"))

    assert (build.name, runtime.name, build.image == runtime.image) == ("build", None, True)
    assert runtime.all("COPY") == ["--from=build /install /usr/local"]  # nothing else of the build
    assert runtime.one("USER") == "confcal" and uid >= 1000
    assert runtime.one("WORKDIR") == home
    assert set(options) == {"interval", "timeout", "start-period", "retries"}
    assert f"127.0.0.1:{IMAGE_PORT}/healthz" in command
    assert exec_form(runtime.one("CMD"))[:2] == ["confcal", "serve"]


@dataclass(frozen=True)
class Image:
    work: Path
    paths: PathMap
    uid: int
    env: dict[str, str]  # what the runtime stage's processes see
    cwd: Path

    def as_user(self, command: list[str]) -> list[str]:
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--", *command]


def _needs_root() -> None:
    if os.geteuid() != 0:
        reason = "switching to the image's user needs root"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def _build_stage(stage: Stage, paths: PathMap, base: Path) -> None:
    src = paths.path(stage.one("WORKDIR"))
    src.mkdir(parents=True)
    for copy in stage.all("COPY"):
        *sources, target = copy.split()
        for source in sources:
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, src / target, ignore=shutil.ignore_patterns("__pycache__"))
            else:  # files into a folder (the target ends with "/")
                assert target.endswith("/"), copy
                (src / target).mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / source, src / target / source)
    # pip from PyPI as on any build; nothing of this checkout's environment (PYTHONPATH, the
    # editable install) may leak into the build.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "CONFCAL_", "VIRTUAL_ENV"))}
    env |= {"PATH": f"{base}/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(src.parent / "build-home")}
    for run in stage.all("RUN"):
        done = subprocess.run(paths(run), shell=True, cwd=src, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"RUN {run}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def image() -> Iterator[Image]:
    _needs_root()
    build, runtime = STAGES
    # Not pytest's tmp_path: its folders are private to root, and the image's user must read these.
    work = Path(tempfile.mkdtemp(prefix="confcal-image-"))
    work.chmod(0o755)
    try:
        uid, home_path = _useradd(runtime)
        paths = PathMap(
            {
                "/usr/local": work / "usr-local",
                "/install": work / "install",
                "/src": work / "src",
                home_path: work / "home",
            }
        )
        base = paths.path("/usr/local")
        subprocess.run([BASE_PYTHON, "-m", "venv", str(base)], check=True)
        _build_stage(build, paths, base)

        (copy,) = runtime.all("COPY")
        _, source, target = copy.split()
        shutil.copytree(paths.path(source), paths.path(target), dirs_exist_ok=True)
        home = paths.path(home_path)
        home.mkdir()
        os.chown(home, uid, uid)
        env = {"PATH": f"{base}/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
        for line in runtime.all("ENV"):
            env |= {key: paths(value) for key, value in env_pairs(line).items()}
        yield Image(work, paths, uid, env, paths.path(runtime.one("WORKDIR")))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _on_port(command: str, port: int) -> str:
    return command.replace(f":{IMAGE_PORT}", f":{port}")


def _health(image: Image, port: int) -> int:
    _, command = healthcheck(STAGES[1].one("HEALTHCHECK"))
    shell = ["/bin/sh", "-c", image.paths(_on_port(command, port))]
    return subprocess.run(image.as_user(shell), env=image.env, cwd=image.cwd, capture_output=True).returncode


def test_the_image_serves_as_its_user_and_passes_its_health_check(image: Image) -> None:
    port = free_port()
    command = [
        {"0.0.0.0": "127.0.0.1", IMAGE_PORT: str(port)}.get(word, word) for word in exec_form(STAGES[1].one("CMD"))
    ]
    log = (image.work / "serve.log").open("wb")
    server = subprocess.Popen(
        image.as_user(command), env=image.env, cwd=image.cwd, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        for _ in range(600):  # bounded wait for start-up (the demo is seeded first); not a timing assertion
            assert server.poll() is None, (image.work / "serve.log").read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        healthy = _health(image, port)
        owner = os.stat(f"/proc/{server.pid}").st_uid
        feeds = httpx.get(f"http://127.0.0.1:{port}/api/feeds").json()["feeds"]
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    stopped = _health(image, port)

    assert healthy == 0
    assert owner == image.uid
    assert len(feeds) > 10
    assert stopped != 0
    assert Path(image.env["CONFCAL_DB"]).is_file()  # the store in the user's home, the image's volume


def test_the_images_user_cannot_change_the_installed_files(image: Image) -> None:
    base = image.paths.path("/usr/local")
    walk = (
        "import os, sys\n"
        "for folder, dirs, files in os.walk(sys.argv[1]):\n"
        "    for name in [folder, *(os.path.join(folder, f) for f in files)]:\n"
        "        if not os.path.islink(name) and os.access(name, os.W_OK):\n"
        "            print(name)\n"
    )
    python = str(base / "bin" / "python")

    writable = subprocess.run(
        image.as_user([python, "-c", walk, str(base)]),
        env=image.env,
        cwd=image.cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    installed = subprocess.run(
        image.as_user([python, "-c", "import server; print(server.__file__)"]),
        env=image.env,
        cwd=image.cwd,
        capture_output=True,
        text=True,
        check=True,
    )

    assert writable.stdout.splitlines() == []
    assert installed.stdout.strip().startswith(str(base))  # the copied install, not this checkout
