"""Output paths never clobber what is not a regular file (issue 34, item 2): ``-`` is
standard output, a character device or a FIFO is written in place (a FIFO nobody reads
is an error, not a hang), a symbolic link keeps pointing where it did, ``/dev/full`` is a
full disk (exit 2), and a block device is refused. Every writer goes through
``burstlab.files.atomic_write``; each case runs under the 4 GiB cap (``tests/_capped.py``)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from burstlab import io
from burstlab.files import atomic_write_text
from burstlab.traces import Trace
from tests._capped import assert_result_or_error, run_capped

GEN = ["gen", "bernoulli:p=0.1", "-n", "10", "--seed", "3"]


def _null_device(tmp_path: Path) -> Path:
    n = tmp_path / "n"
    try:
        os.mknod(n, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a private /dev/null (root only)
    except PermissionError:
        pytest.skip("making a device node needs root")
    return n


def test_gen_into_a_character_device_keeps_it(tmp_path: Path) -> None:
    n = _null_device(tmp_path)
    o = run_capped([*GEN, "-o", str(n)])
    assert_result_or_error(o, expect=0)
    assert stat.S_ISCHR(os.stat(n).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["n"]  # no temporary file left beside it


def test_dev_null_stays_a_device() -> None:
    before = os.stat("/dev/null")
    o = run_capped([*GEN, "-o", "/dev/null"])
    assert_result_or_error(o, expect=0)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_dev_full_is_a_full_disk() -> None:
    o = run_capped([*GEN, "-o", "/dev/full"])
    assert_result_or_error(o, expect=2, contains="error: /dev/full: cannot write: no space left on the device")


def test_dash_is_stdout(tmp_path: Path) -> None:
    o = run_capped([*GEN, "-o", "-"], cwd=tmp_path)
    assert_result_or_error(o, expect=0)
    ref = tmp_path / "ref.bits"
    assert_result_or_error(run_capped([*GEN, "-o", str(ref)]), expect=0)
    assert o.stdout == ref.read_text()
    assert not (tmp_path / "-").exists()


def test_fifo_without_reader_is_an_error_not_a_hang(tmp_path: Path) -> None:
    f = tmp_path / "fifo"
    os.mkfifo(f)
    o = run_capped([*GEN, "-o", str(f)])
    assert_result_or_error(o, expect=2, contains="a FIFO with no reader")
    assert stat.S_ISFIFO(os.stat(f).st_mode)


def test_fifo_with_reader_gets_the_trace(tmp_path: Path) -> None:
    f = tmp_path / "fifo"
    os.mkfifo(f)
    got: list[bytes] = []

    def read() -> None:
        with open(f, "rb") as fh:
            got.append(fh.read())

    t = threading.Thread(target=read)
    t.start()
    try:
        o = run_capped([*GEN, "-o", str(f)])
    finally:
        if t.is_alive() and not got:
            with open(f, "wb"):  # unblock the reader if the writer never came
                pass
        t.join(10)
    assert_result_or_error(o, expect=0)
    assert stat.S_ISFIFO(os.stat(f).st_mode)
    ref = tmp_path / "ref.bits"
    run_capped([*GEN, "-o", str(ref)])
    assert got == [ref.read_bytes()]


def test_symlink_is_kept_and_its_target_written(tmp_path: Path) -> None:
    target = tmp_path / "real.bits"
    target.write_text("old\n")
    link = tmp_path / "link.bits"
    link.symlink_to(target.name)
    o = run_capped([*GEN, "-o", str(link)])
    assert_result_or_error(o, expect=0)
    assert link.is_symlink() and os.readlink(link) == "real.bits"
    assert len(target.read_text().split()) == 10


def test_convert_and_series_into_devices(tmp_path: Path) -> None:
    src = tmp_path / "t.bits"
    src.write_text("1\n0\n1\n1\n")
    n = _null_device(tmp_path)
    assert_result_or_error(run_capped(["convert", str(src), str(n)]), expect=0)
    assert stat.S_ISCHR(os.stat(n).st_mode)
    o = run_capped(["sim", "--duration", "2s", "--series", "-"])
    assert_result_or_error(o, expect=0)
    assert o.stdout.splitlines()[0].startswith("time,cwnd")


def test_block_device_is_refused(tmp_path: Path) -> None:
    b = tmp_path / "blk"
    try:
        os.mknod(b, 0o600 | stat.S_IFBLK, os.makedev(7, 250))
    except PermissionError:
        pytest.skip("making a device node needs root")
    with pytest.raises(OSError, match="is a block device, not a file"):
        atomic_write_text(b, "x")
    assert stat.S_ISBLK(os.stat(b).st_mode)


def test_python_api_writes_into_a_device_in_place(tmp_path: Path) -> None:
    n = _null_device(tmp_path)
    io.write_trace(Trace.from_string("101"), n)
    io.write_trace(Trace.from_string("101"), n, "parquet")  # a writer that needs a seekable file
    assert stat.S_ISCHR(os.stat(n).st_mode)


def test_read_only_folder_is_an_error(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    if os.getuid() == 0:  # root writes anywhere but in a read-only mount: /proc is one
        o = run_capped([*GEN, "-o", "/proc/burstlab-out.bits"])
    else:
        ro.chmod(0o500)
        o = run_capped([*GEN, "-o", str(ro / "x.bits")])
    assert_result_or_error(o, expect=2)
