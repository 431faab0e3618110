"""The dataset registry and its fetcher, against a local HTTP server (127.0.0.1, started here)
serving the shared copies: real downloads, checksum failures, a truncated and a changed file,
a refused connection; and the end-to-end run from a folder that is not the checkout's parent,
with no data environment variable."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from burstlab.datasets.fetch import DatasetError, fetch, file_url, locate, verify
from burstlab.datasets.registry import STUDIES, datasets, get


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        _Quiet.requests.append(self.path)


class Server:
    """A local server of ``root`` (``root/NAME/PATH``), its base URL and the paths it was asked for."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_Quiet, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def requests(self) -> list[str]:
        return _Quiet.requests

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def served(shared: Path, tmp_path: Path) -> Iterator[Server]:
    """The shared datasets, served from a temporary folder of symbolic links (a test may
    replace one link by a damaged copy without touching the shared data)."""
    root = tmp_path / "served"
    (root / "rutgers-noise").mkdir(parents=True)  # 2,436 files: one link to their folder
    (root / "rutgers-noise" / "data").symlink_to(shared / "data" / "rutgers-noise" / "data")
    for name in ("starlink-ping", "tossim-noise", "mahimahi-cellular"):
        for f in get(name).files:
            dst = root / name / f.path
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.symlink_to(shared / "data" / name / f.path)
    _Quiet.requests = []
    srv = Server(root)
    yield srv
    srv.close()


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No data variable, a fresh user cache, a working directory holding decoys."""
    for var in ("BURSTLAB_DATA", "BURSTLAB_SHARED", "BURSTLAB_DATA_URL"):
        monkeypatch.delenv(var, raising=False)
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    cwd = tmp_path / "cwd"
    (cwd / "shared" / "data").mkdir(parents=True)
    monkeypatch.chdir(cwd)
    return cache


def _damage(server: Server, name: str, path: str, data: bytes) -> None:
    p = server.root / name / path
    p.unlink()
    p.write_bytes(data)


def test_registry_entries_are_complete() -> None:
    names = [d.name for d in datasets()]
    assert sorted(names) == ["mahimahi-cellular", "rutgers-noise", "starlink-ping", "tossim-noise"]
    for d in datasets():
        assert len(d.commit) == 40 and int(d.commit, 16) >= 0
        assert d.base_url.startswith(f"https://raw.githubusercontent.com/{d.repository}/{d.commit}/")
        assert d.licence and d.citation and d.good_for and d.too_short_for
        assert set(d.supports) == set(STUDIES)
        assert d.files and all(len(f.sha256) == 64 and f.size >= 0 for f in d.files)
        assert len({f.path for f in d.files}) == len(d.files)
    assert get("starlink") is get("starlink-ping") and get("rutgers").name == "rutgers-noise"
    assert get("starlink-ping").url(get("starlink-ping").files[1]).endswith("/src/latency/no-isl-ping-gw-seattle-230911-170535-0.1s-60min.txt")
    with pytest.raises(Exception, match="unknown dataset 'nope'.*burstlab data list"):
        get("nope")


@pytest.mark.parametrize("name", [d.name for d in datasets()])
def test_shared_copy_matches_the_registry(shared: Path, name: str) -> None:
    """Every registered file is in the shared mirror with its size and SHA-256 (and the shared
    folder holds no reception data the registry leaves out)."""
    local = locate(name, shared / "data")
    assert local.source == "--data" and verify(local) == []
    on_disk = {str(p.relative_to(local.root)) for p in local.root.rglob("*") if p.is_file()}
    assert on_disk - {f.path for f in local.dataset.files} == {"SOURCE.txt"}


def test_fetch_downloads_checks_and_is_found_without_any_variable(served: Server, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DatasetError, match=r"dataset starlink-ping is not on this machine.*burstlab data fetch starlink-ping.*--data DIR or BURSTLAB_DATA"):
        locate("starlink")  # the decoy ./shared/data in the working directory is never looked at
    monkeypatch.setenv("BURSTLAB_DATA_URL", served.url)
    seen: list[tuple[int, int]] = []
    local = fetch("starlink", progress=lambda d, t: seen.append((d, t)))
    assert local.root == (isolated / "burstlab" / "datasets" / "starlink-ping").resolve()
    assert seen[-1] == (2, 2) and verify(local) == []
    assert sorted(served.requests) == sorted(f"/starlink-ping/{f.path}" for f in get("starlink").files)
    monkeypatch.delenv("BURSTLAB_DATA_URL")
    found = locate("starlink-ping")
    assert found.source == "cache" and found.root == local.root
    # a second fetch finds every file intact and downloads nothing
    served.requests.clear()
    monkeypatch.setenv("BURSTLAB_DATA_URL", served.url)
    fetch("starlink-ping")
    assert served.requests == []


@pytest.mark.parametrize("damage", ["changed", "truncated"])
def test_a_damaged_server_copy_is_refused_and_not_kept(served: Server, isolated: Path, monkeypatch: pytest.MonkeyPatch, shared: Path, damage: str) -> None:
    name, path = "tossim-noise", "casino-lab.txt"
    good = (shared / "data" / name / path).read_bytes()
    bad = good[:-7] + b"-99\n-9\n" if damage == "changed" else good[: len(good) // 2]
    assert (len(bad) == len(good)) == (damage == "changed")
    _damage(served, name, path, bad)
    monkeypatch.setenv("BURSTLAB_DATA_URL", served.url)
    url = file_url(get(name), get(name).files[1])
    assert url == f"{served.url}/{name}/{path}"
    with pytest.raises(DatasetError, match=rf"dataset {name}: {path} downloaded from {url} is not the registered file.*truncated or changed") as e:
        fetch(name)
    assert get(name).files[1].sha256 in str(e.value)
    assert not (isolated / "burstlab" / "datasets" / name / path).exists()
    with pytest.raises(DatasetError):
        locate(name)


def test_a_changed_local_copy_is_found_by_verify_and_repaired_by_fetch(served: Server, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BURSTLAB_DATA_URL", served.url)
    local = fetch("mahimahi-cellular")
    p = local.path("Verizon-LTE-short.up")
    data = bytearray(p.read_bytes())
    data[10] ^= 1  # same size, one bit changed
    p.write_bytes(bytes(data))
    (problem,) = verify(local)
    assert problem.path == "Verizon-LTE-short.up" and problem.what.startswith("SHA-256")
    served.requests.clear()
    fetch("mahimahi-cellular")
    assert served.requests == ["/mahimahi-cellular/Verizon-LTE-short.up"] and verify(local) == []


def test_network_refused_names_dataset_url_and_offline_option(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("BURSTLAB_DATA_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(DatasetError, match=rf"dataset starlink-ping: cannot reach http://127.0.0.1:{port}/starlink-ping/\S+ .*--data DIR or BURSTLAB_DATA=DIR"):
        fetch("starlink-ping")


def test_missing_server_file_and_bad_mirror_url(served: Server, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (served.root / "mahimahi-cellular" / "README.traces").unlink()
    monkeypatch.setenv("BURSTLAB_DATA_URL", served.url + "/")
    with pytest.raises(DatasetError, match=rf"dataset mahimahi-cellular: cannot download {served.url}/mahimahi-cellular/README.traces: HTTP 404"):
        fetch("mahimahi")
    monkeypatch.setenv("BURSTLAB_DATA_URL", "mirror.example/data")
    with pytest.raises(Exception, match=r"invalid BURSTLAB_DATA_URL = 'mirror.example/data': expected an http:// or https:// URL"):
        fetch("mahimahi")


def test_offline_mirror_order(shared: Path, isolated: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BURSTLAB_SHARED", str(shared))
    assert locate("tossim").source == "BURSTLAB_SHARED"
    mirror = tmp_path / "mirror"
    shutil.copytree(shared / "data" / "starlink-ping", mirror / "starlink-ping")
    monkeypatch.setenv("BURSTLAB_DATA", str(mirror))
    assert locate("starlink").root == (mirror / "starlink-ping").resolve()
    assert locate("starlink", data=shared / "data").source == "--data"
    # an incomplete mirror (a file cut short) is passed over for the next place
    with open(mirror / "starlink-ping" / "LICENSE", "r+b") as fh:
        fh.truncate(100)
    assert locate("starlink").source == "BURSTLAB_SHARED"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BURSTLAB_") and k != "XDG_CACHE_HOME"}
    env.update(extra)
    return env


def _burstlab(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_cli_end_to_end_from_an_unrelated_folder(served: Server, tmp_path: Path) -> None:
    """``burstlab data fetch`` from the local server, then studies on the data, from a folder
    that is not the checkout's parent, with no data variable (HOME decides the user cache)."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    home = tmp_path / "home"
    env = _env(HOME=str(home))
    r = _burstlab(["data", "path", "starlink"], cwd, env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "burstlab data fetch starlink-ping" in r.stderr, r.stderr
    r = _burstlab(["data", "fetch", "starlink", "tossim"], cwd, {**env, "BURSTLAB_DATA_URL": served.url})
    assert r.returncode == 0, r.stderr
    assert str(home / ".cache" / "burstlab" / "datasets" / "starlink-ping") in r.stdout
    r = _burstlab(["data", "list"], cwd, env)
    where = {ln.split()[0]: ln.split()[6] for ln in r.stdout.splitlines()[1:]}  # name kind N files, SIZE UNIT local
    assert r.returncode == 0 and where == {"starlink-ping": "cache", "tossim-noise": "cache", "rutgers-noise": "not", "mahimahi-cellular": "not"}, r.stdout
    r = _burstlab(["data", "verify", "starlink", "tossim"], cwd, env)
    assert r.returncode == 0 and r.stdout.count(": ok,") == 2, r.stdout
    r = _burstlab(["study", "prr-mu", "--dataset", "starlink", "--prr-range", "0.1", "1", "--seeds", "2", "--workers", "1", "--no-progress", "--out", "s"], cwd, env)
    assert r.returncode == 0, r.stderr
    assert "note: timing: profile mirage (slot 0.01 s, --timing slots)" in r.stderr
    assert "1 of 1 links are shorter than the 40,000 packets" in r.stderr
    report = (cwd / "s" / "report.md").read_text()
    assert "Starlink ICMP probes" in report and "CC BY-SA 4.0" in report
    r = _burstlab(["study", "prr-mu", "--dataset", "tossim", "--targets", "0.3,0.5", "--seeds", "1", "--workers", "1", "--no-progress", "--out", "t"], cwd, env)
    assert r.returncode == 0, r.stderr
    assert "timing: profile mirage" in r.stderr and (cwd / "t" / "report.md").is_file()
    # a damaged cache is reported by verify with exit 1
    p = home / ".cache" / "burstlab" / "datasets" / "tossim-noise" / "casino-lab.txt"
    p.write_bytes(p.read_bytes()[:1000])
    r = _burstlab(["data", "verify", "tossim"], cwd, env)
    assert r.returncode == 1 and "casino-lab.txt: size 1000 bytes, registered 786480" in r.stdout, r.stdout


def test_docs_list_every_dataset_with_provenance_and_studies() -> None:
    from conftest import REPO

    text = (REPO / "docs" / "datasets.md").read_text()
    for d in datasets():
        assert f"`{d.name}`" in text and d.commit in text and d.repository in text
    for s in STUDIES:
        assert f"`{s}`" in text


def test_support_checks_known_answers() -> None:
    from burstlab.datasets import support

    assert support.mu_convergence([50_000, 60_000], 40_000, dataset="x", profile="mirage") is None
    w = support.mu_convergence([301, 301, 12_000], 10_000, dataset="rutgers", profile="roofnet")
    assert w is not None and "2 of 3 links are shorter than the 10,000" in w and "1 reach it (longest 12,000)" in w
    w = support.mu_convergence([301], 10_000, dataset="rutgers", profile="roofnet")
    assert w is not None and "none reach it (longest 301)" in w
    assert support.looping([983.0], 300.0, what="x") is None
    w = support.looping([1.505, 983.0], 300.0, what="dataset rutgers")
    assert w is not None and "1 of 2 traces are looped" in w and "1.505 s, 199.3 times" in w
    assert support.too_few_links(5, 5, what="fit") is None
    assert support.too_few_links(1, 5, what="fit") == "fit: 1 link, fewer than the 5 needed; its result is not an estimate across links"
    with pytest.warns(support.DataSupportWarning, match="looped"):
        support.warn(w)


def test_starlink_timings(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from burstlab.datasets.starlink import starlink

    monkeypatch.setenv("BURSTLAB_SHARED", str(shared))
    (s,) = starlink("slots", slot=0.01)
    assert len(s) == 36_000 and s.interval == 0.01 and s.timestamps is None and s.meta["timing"] == "slots"
    (t,) = starlink("time", slot=0.01)
    assert len(t) == 965_801 and t.interval == 0.01  # 9,658.0 s of 10 ms slots
    with pytest.raises(Exception, match="timing = 'both'"):
        starlink("both")


@pytest.mark.slow
def test_cli_each_supporting_study_runs_on_fetched_data(served: Server, tmp_path: Path) -> None:
    """The studies the registry says a dataset supports run on a fresh download of it (the
    quick settings), from an unrelated folder with no data variable; the looped Rutgers
    traces are warned about with numbers."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = _env(HOME=str(tmp_path / "home"))
    r = _burstlab(["data", "fetch", "rutgers", "tossim"], cwd, {**env, "BURSTLAB_DATA_URL": served.url})
    assert r.returncode == 0, r.stderr
    assert get("tossim").supports["hybrid"][0] and get("rutgers").supports["link-transport"][0]
    r = _burstlab(["study", "hybrid", "--dataset", "tossim", "--quick", "--no-sweep", "--max-traces", "2", "--workers", "1", "--no-progress", "--out", "h"], cwd, env)
    assert r.returncode == 0 and (cwd / "h" / "report.md").is_file(), r.stderr
    assert "looped" not in r.stderr  # 983 s of noise readings cover a 300 s run
    r = _burstlab(["study", "link-transport", "--quick", "--no-sweep", "--noise", "-10", "--workers", "1", "--no-progress", "--out", "l"], cwd, env)
    assert r.returncode == 0 and (cwd / "l" / "report.md").is_file(), r.stderr
    r = _burstlab(["study", "hybrid", "--dataset", "rutgers", "--noise", "dbm-10", "--max-traces", "2", "--quick", "--no-sweep", "--runs", "2",
                   "--workers", "1", "--no-progress", "--out", "hr"], cwd, env)
    assert r.returncode == 0, r.stderr
    assert "warning: dataset rutgers: 2 of 2 traces are looped more than 1 time to cover a 300 s run" in r.stderr
