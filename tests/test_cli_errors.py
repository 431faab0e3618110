"""The bad-input contract of every CLI command (docs/errors.md): a one-line ``error: ...``
(or click's usage error) naming the file, line and offending value where there is one, a
non-zero exit, no traceback, no hang and no output file left behind.

Everything runs in-process through ``burstlab.cli.main`` with ``capsys``; no case runs a
simulation longer than a few simulated seconds."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import burstlab
import burstlab.fits
import burstlab.io
import burstlab.lossspec
import burstlab.models
import burstlab.sim
from burstlab.cli import main

# --------------------------------------------------------------------------- fixtures

FILES = {
    "empty.txt": b"",
    "blank.txt": b"\n\n   \n\n",
    "malformed.txt": b"0\n1\nx\n1\n",
    "badval.txt": b"0\n1\n2\n1\n1\n0\n",
    "garbage.bin": bytes(range(256)) * 4,
    "good.txt": b"1\n1\n0\n1\n0\n0\n1\n1\n1\n0\n",
    "bad.csv": b"seq,received\n0,1\n1,0\n2,x\n3,1\n",
    "headeronly.csv": b"seq,received\n",
    "bad.parquet": b"PAR1garbagegarbage",
    "trunc.json": b'{"model": "gilbert-elliott"',
    "nomodel.json": b'{"settings": {}}',
    "unkmodel.json": b'{"model": "nosuch"}',
    "prob2.json": b'{"model": "bernoulli", "settings": {"p": 2}}',
    "fittedwrong.json": b'{"model": "gilbert-elliott", "settings": {}, "fitted": {"b_": "x"}}',
    "fittedlist.json": b'{"model": "bernoulli", "settings": {}, "fitted": [1]}',
    "fittedarr.json": b'{"model": "gilbert-elliott", "settings": {}, "fitted": {"b_": 0.1, "g_": [1, 2], "h_loss_": 1, "k_loss_": 0}}',
    "missingcol.csv": b"prr,mu\n0.5,0.1\n",
    "badnum.csv": b"prr,mu,throughput_pps\n0.5,abc,3\n0.6,0.2,4\n",
    "emptyres.csv": b"prr,mu,throughput_pps\n",
    "shortrow.csv": b"prr,mu,throughput_pps\n0.5,0.1,3\n\n0.6,0.2\n0.4,0.1,2\n",
    "blankbad.csv": b"prr,mu,throughput_pps\n0.5,0.1,3\n\n0.6,x,3\n",
    "prrrange.csv": b"prr,mu,throughput_pps\n0.5,0.1,3\n1.5,0.1,3\n",
    "nanthr.csv": b"prr,mu,throughput_pps\n0.5,0.1,3\n0.6,0.2,nan\n",
    "murange.csv": b"prr,mu,throughput_pps\n0.5,0.1,3\n0.6,-1.5,3\n",
    "bad.duckdb": b"not a duckdb file at all, not at all, nope",
    "goodres.csv": b"prr,mu,throughput_pps\n" + b"".join(f"{0.2 + 0.03 * i:.2f},{0.05 * i:.2f},{2 + 0.1 * i:.2f}\n".encode() for i in range(12)),
    # issue 13: inputs that crashed, hung or were misread
    "x.seq": b"0\n1\n3\n",
    "stray.seq": b"0\n1\n68719476735\n",
    "hugehdr.seq": b"# burstlab seqlist: expected=1000000000000000000\n1\n",
    "noexp.csv": b"seq\n0\n2\n",
    "mm.trace": b"0\n0\n2\n3\n3\n3\n5\n9\n9\n12\n",
    "negres.csv": b"prr,mu,throughput_pps\n" + b"".join(f"{0.2 + 0.03 * i:.2f},{0.05 * i:.2f},{-1 - i}\n".encode() for i in range(12)),
    "hugeres.csv": b"prr,mu,throughput_pps\n" + b"".join(f"{0.2 + 0.03 * i:.2f},{0.05 * i:.2f},{1e300 * (1 + i)}\n".encode() for i in range(12)),
    "bigbits.txt": b"".join(b"%d\n" % ((i * 7919) % 3 == 0) for i in range(400)),
}


@pytest.fixture
def fx(tmp_path: Path) -> Path:
    d = tmp_path / "fx"
    d.mkdir()
    for name, data in FILES.items():
        (d / name).write_bytes(data)
    (d / "adir").mkdir()
    (d / "notraces").mkdir()
    (d / "badtraces").mkdir()
    (d / "badtraces" / "a.txt").write_bytes(b"1\n1\n0\n1\n")
    (d / "badtraces" / "b.txt").write_bytes(b"0\n1\nx\n1\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"seq": [0.5, 1.5, 2.7]}), d / "frac.parquet")
    return d


@pytest.fixture
def out(tmp_path: Path) -> Path:
    d = tmp_path / "out"
    d.mkdir()
    return d


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(argv)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "Traceback" not in cap.out
    return rc, cap.err


def _left(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*"))


# --------------------------------------------------------------------------- cases
# (argv with FX/OUT placeholders, strings the one-line message must contain). Each names
# the file (and line) and the offending value where the input has them.

CASES: list[tuple[str, list[str]]] = [
    # stats: files, formats, numeric options
    ("stats FX/empty.txt", ["FX/empty.txt", "empty file"]),
    ("stats FX/blank.txt", ["FX/blank.txt", "empty file"]),
    ("stats FX/malformed.txt", ["FX/malformed.txt:3", '"x"']),
    ("stats FX/badval.txt", ["FX/badval.txt:3", '"2"']),
    ("stats FX/garbage.bin", ["FX/garbage.bin", "binary content", "offset 0"]),
    ("stats FX/notraces", ["no trace file found", "FX/notraces"]),
    ("stats FX/bad.csv", ["FX/bad.csv:4", "received", "2,x"]),
    ("stats FX/headeronly.csv", ["FX/headeronly.csv", "empty file"]),
    ("stats FX/bad.parquet", ["FX/bad.parquet", "not a readable Parquet file"]),
    ("stats FX/good.txt FX/malformed.txt", ["FX/malformed.txt:3", '"x"']),
    ("stats FX/malformed.txt --format seqlist", ["FX/malformed.txt:3", '"x"']),
    ("stats FX/malformed.txt --format string", ["FX/malformed.txt:3", '"x"']),
    ("stats FX/good.txt --format csv", ["FX/good.txt:1", "header"]),
    ("stats FX/good.txt --chunk 0", ["--chunk", "0 is not in the range"]),
    ("stats FX/good.txt --chunk -5", ["--chunk", "-5 is not in the range"]),
    ("stats FX/good.txt --chunk 99999999999999999999", ["--chunk", "99999999999999999999 is not in the range"]),
    ("stats FX/good.txt --interval -1", ["--interval", "'-1': must be positive"]),
    ("stats FX/good.txt --interval 0ms", ["--interval", "'0ms': must be positive"]),
    ("stats FX/good.txt --interval nan", ["--interval", "'nan'"]),
    ("stats FX/good.txt --interval inf", ["--interval", "'inf'"]),
    ("stats FX/good.txt --expected 0", ["--expected", "0 is not in the range"]),
    ("stats FX/good.txt --format nosuch", ["--format", "nosuch"]),
    ("stats FX/good.txt --one-means maybe", ["--one-means", "maybe"]),
    ("stats FX/good.txt --json --csv", ["--json", "--csv"]),
    ("stats FX/nonexistent.txt", ["FX/nonexistent.txt", "does not exist"]),
    # convert: inputs and unwritable outputs
    ("convert FX/nonexistent.txt OUT/x.txt", ["FX/nonexistent.txt", "does not exist"]),
    ("convert FX/adir OUT/x.txt", ["FX/adir", "is a directory"]),
    ("convert FX/empty.txt OUT/x.txt", ["FX/empty.txt", "empty file"]),
    ("convert FX/malformed.txt OUT/x.txt", ["FX/malformed.txt:3", '"x"']),
    ("convert FX/garbage.bin OUT/x.txt", ["FX/garbage.bin"]),
    ("convert FX/bad.csv OUT/x.parquet", ["FX/bad.csv:4", "2,x"]),
    ("convert FX/good.txt OUT/x.txt --interval -1", ["--interval", "'-1': must be positive"]),
    ("convert FX/good.txt OUT/x.txt --to nosuch", ["--to", "nosuch"]),
    ("convert FX/good.txt FX/good.txt/x.txt", ["FX/good.txt/x.txt", "FX/good.txt is not a directory"]),
    ("convert FX/good.txt OUT", ["OUT", "is a directory"]),
    # fit
    ("fit FX/empty.txt", ["FX/empty.txt", "empty file"]),
    ("fit FX/malformed.txt", ["FX/malformed.txt:3", '"x"']),
    ("fit FX/adir", ["FX/adir", "is a directory"]),
    ("fit FX/good.txt --models foo", ["models = 'foo'"]),
    ("fit FX/good.txt --models ,", ["--models", "','"]),
    ("fit FX/good.txt --format nosuch", ["--format", "'nosuch' is not one of"]),
    ("fit FX/good.txt --seed -1", ["--seed", "-1 is not in the range"]),
    # gen: model files and specs
    ("gen FX/nonexistent.json -n 10 -o OUT/x.txt", ["FX/nonexistent.json", "No such file"]),
    ("gen FX/empty.txt -n 10 -o OUT/x.txt", ["FX/empty.txt", "empty file"]),
    ("gen FX/garbage.bin -n 10 -o OUT/x.txt", ["FX/garbage.bin", "not a model JSON"]),
    ("gen FX/trunc.json -n 10 -o OUT/x.txt", ["FX/trunc.json:1", "not valid JSON"]),
    ("gen FX/nomodel.json -n 10 -o OUT/x.txt", ["FX/nomodel.json", "'model'"]),
    ("gen FX/unkmodel.json -n 10 -o OUT/x.txt", ["FX/unkmodel.json", "'nosuch'"]),
    ("gen FX/prob2.json -n 10 -o OUT/x.txt", ["FX/prob2.json", "p = 2"]),
    ("gen FX/fittedwrong.json -n 10 -o OUT/x.txt", ["FX/fittedwrong.json", "g_ is missing"]),
    ("gen FX/fittedlist.json -n 10 -o OUT/x.txt", ["FX/fittedlist.json", "fitted = [1]"]),
    ("gen FX/fittedarr.json -n 10 -o OUT/x.txt", ["FX/fittedarr.json", "[1, 2]"]),
    ("gen ge:prr=2,mu=0.5 -n 10 -o OUT/x.txt", ["prr = 2"]),
    ("gen ge:prr=2 -n 10 -o OUT/x.txt", ["ge:prr=2", "mu"]),
    ("gen ge:prr= -n 10 -o OUT/x.txt", ["ge:prr=", "mu"]),
    ("gen ge:prr=,mu=0.5 -n 10 -o OUT/x.txt", ["prr = ''"]),
    ("gen ge:prr=nan,mu=0.5 -n 10 -o OUT/x.txt", ["prr = nan", "in [0, 1]"]),
    ("gen ge:prr=0.9,mu=2 -n 10 -o OUT/x.txt", ["mu = 2"]),
    ("gen foo -n 10 -o OUT/x.txt", ["unknown model 'foo'"]),
    ("gen bernoulli:p=1.5 -n 10 -o OUT/x.txt", ["p = 1.5"]),
    ("gen bernoulli:p=-0.1 -n 10 -o OUT/x.txt", ["p = -0.1"]),
    ("gen bernoulli:p=0.1,p=0.2 -n 10 -o OUT/x.txt", ["'p' given twice"]),
    ("gen ctmc:good=inf,bad=4 -n 10 -o OUT/x.txt", ["mean_good = inf"]),
    ("gen semi:good=pareto/0.1/-1,bad=exp/0.05 -n 10 -o OUT/x.txt", ["good.shape = -1"]),
    ("gen replay:file=FX/malformed.txt -n 10 -o OUT/x.txt", ["FX/malformed.txt:3", '"x"']),
    ("gen bernoulli:p=0.1 -n 0 -o OUT/x.txt", ["-n", "0"]),
    ("gen bernoulli:p=0.1 -n 100000000000000 -o OUT/x.txt", ["-n", "100000000000000 packets need"]),
    ("gen bernoulli:p=0.1 -n 10 -o OUT/x.txt --format nosuch", ["--format", "'nosuch' is not one of"]),
    ("gen bernoulli:p=0.1 -n 10 -o FX/good.txt/x.txt", ["FX/good.txt/x.txt", "not a directory"]),
    # sim: units, numbers, specs, combinations, outputs
    ("sim --rate 10Mbps? --duration 1s", ["--rate", "'10Mbps?'", "expected a number with a unit"]),
    ("sim --rate 0 --duration 1s", ["--rate", "'0'", "must be positive"]),
    ("sim --rate nan --duration 1s", ["--rate", "'nan'"]),
    ("sim --delay -5ms --duration 1s", ["--delay", "'-5ms'", "must not be negative"]),
    ("sim --duration 0s", ["--duration", "'0s'", "must be positive"]),
    ("sim --duration -1s", ["--duration", "'-1s'", "must be positive"]),
    ("sim --duration 1e30s", ["--duration", "'1e30s'", "at most"]),
    ("sim --size 0 --duration 1s", ["size = 0"]),
    ("sim --warmup 2s --duration 1s", ["warmup = 2"]),
    ("sim --buffer -1 --duration 1s", ["--buffer", "-1"]),
    ("sim --mss 0 --duration 1s", ["mss = 0"]),
    ("sim --init-cwnd 0 --duration 1s", ["--init-cwnd = 0"]),
    ("sim --rto-min 10s --rto-max 1s --duration 1s", ["--rto-min = 10"]),
    ("sim --seed -1 --duration 1s", ["--seed", "-1"]),
    ("sim --seed 99999999999999999999999 --duration 1s", ["--seed", "99999999999999999999999"]),
    ("sim --loss ge:prr=2 --duration 1s", ["ge:prr=2", "mu"]),
    ("sim --loss ge:prr=2,mu=0.5 --duration 1s", ["prr = 2"]),
    ("sim --loss foo --duration 1s", ["unknown model 'foo'"]),
    ("sim --loss ge:prr= --duration 1s", ["ge:prr="]),
    ("sim --loss @FX/trunc.json --duration 1s", ["FX/trunc.json:1"]),
    ("sim --ack-loss independent --duration 1s", ["ack_loss = independent"]),
    ("sim --trace FX/empty.txt", ["FX/empty.txt", "empty file"]),
    ("sim --trace FX/malformed.txt", ["FX/malformed.txt:3", '"x"']),
    ("sim --trace FX/good.txt --slot 0", ["--slot", "must be positive"]),
    ("sim --trace FX/good.txt --loss bernoulli:p=0.1", ["--loss", "no effect with --trace"]),
    ("sim --trace FX/good.txt --size 5MB --rate 5Mbit", ["--rate", "--size", "no effect with --trace"]),
    ("sim --slot 5ms --duration 1s", ["--slot", "no effect without --trace"]),
    ("sim --series OUT/s.txt --duration 1s", ["--series", "OUT/s.txt", ".npz or .csv"]),
    ("sim --series FX/good.txt/s.npz --duration 1s", ["FX/good.txt/s.npz", "not a directory"]),
    ("sim --series OUT/s.npz --loss foo --duration 1s", ["unknown model 'foo'"]),
    # predict
    ("predict --rtt 100ms", ["--prr", "--p"]),
    ("predict --prr 1.5 --rtt 100ms", ["prr = 1.5"]),
    ("predict --p nan --rtt 100ms", ["p = nan"]),
    ("predict --p inf --rtt 100ms", ["p = inf"]),
    ("predict --p 0.1 --rtt -5ms", ["'--rtt'", "'-5ms': must be positive"]),
    ("predict --p 0.1 --rtt 0", ["'--rtt'", "'0': must be positive"]),
    ("predict --p 0.1 --rtt 100ms --mss 0", ["mss = 0"]),
    ("predict --p 0.1 --rtt 100ms --b 0", ["b = 0"]),
    ("predict --p 0.1 --rtt 100ms --wmax -5", ["wmax = -5"]),
    ("predict --p 0.1 --rtt 100ms --mathis-c foo", ["c = 'foo'"]),
    ("predict --p 0.1 --rtt 100ms --mu 2", ["mu = 2"]),
    ("predict --p 0.5 --rtt 100ms --strict", ["outside its regime", "p = 0.5"]),
    # fit-throughput: corrupted and malformed result files, bad options
    ("fit-throughput", ["RESULTS", "--demo"]),
    ("fit-throughput FX/empty.txt", ["FX/empty.txt", "empty file"]),
    ("fit-throughput FX/garbage.bin", ["FX/garbage.bin", "binary content"]),
    ("fit-throughput FX/bad.parquet", ["FX/bad.parquet", "cannot read as parquet"]),
    ("fit-throughput FX/bad.duckdb", ["FX/bad.duckdb", "cannot read as duckdb"]),
    ("fit-throughput FX/missingcol.csv", ["FX/missingcol.csv", "throughput_pps"]),
    ("fit-throughput FX/badnum.csv", ["FX/badnum.csv:2", "mu = 'abc'"]),
    ("fit-throughput FX/shortrow.csv", ["FX/shortrow.csv:4", "got 2", "'0.6,0.2'"]),
    ("fit-throughput FX/blankbad.csv", ["FX/blankbad.csv:4", "mu = 'x'"]),
    ("fit-throughput FX/blank.txt", ["FX/blank.txt", "empty file"]),
    ("fit-throughput FX/emptyres.csv", ["FX/emptyres.csv", "no rows"]),
    ("fit-throughput FX/prrrange.csv", ["FX/prrrange.csv:3", "prr = 1.5"]),
    ("fit-throughput FX/nanthr.csv", ["FX/nanthr.csv:3", "throughput_pps = nan"]),
    ("fit-throughput FX/murange.csv", ["FX/murange.csv:3", "mu = -1.5"]),
    ("fit-throughput FX/goodres.csv --folds 1", ["folds = 1"]),
    ("fit-throughput FX/goodres.csv --link-pps 0", ["link-pps = 0"]),
    ("fit-throughput FX/goodres.csv --prr-min nan", ["prr-min = nan"]),
    ("fit-throughput FX/goodres.csv --prr-min 0.9 --prr-max 0.1", ["prr-min = 0.9", "prr-max = 0.1"]),
    ("fit-throughput FX/goodres.csv --seed -1", ["--seed", "-1"]),
    # validate padhye (rejected before any simulation)
    ("validate padhye --p 1.5", ["p = 1.5"]),
    ("validate padhye --p abc", ["--p = 'abc'"]),
    ("validate padhye --p ,", ["--p = ','"]),
    ("validate padhye --seeds 0", ["seeds = 0"]),
    ("validate padhye --duration 1s --warmup 2s", ["warmup = 2"]),
    ("validate padhye --rate nan", ["--rate", "'nan'"]),
    ("validate padhye --variants foo", ["variant = foo"]),
    # study prr-mu (rejected before any output is made)
    ("study prr-mu --traces FX/notraces --out OUT/s --no-progress", ["FX/notraces", "no files found"]),
    ("study prr-mu --traces FX/nonexistent --out OUT/s --no-progress", ["FX/nonexistent", "not a directory"]),
    ("study prr-mu --traces FX/badtraces --out OUT/s --no-progress", ["FX/badtraces/b.txt:3", '"x"']),
    ("study prr-mu --traces FX/badtraces --dataset synthetic --out OUT/s", ["--dataset", "--traces"]),
    ("study prr-mu --links 0 --out OUT/s --no-progress", ["--links", "0 is not in the range x>=1"]),
    ("study prr-mu --seeds 0 --out OUT/s --no-progress", ["--seeds", "0 is not in the range x>=1"]),
    ("study prr-mu --folds 1 --out OUT/s --no-progress", ["--folds", "1 is not in the range x>=2"]),
    ("study prr-mu --prr-range 0.9 0.1 --out OUT/s --no-progress", ["prr_range = (0.9, 0.1)"]),
    ("study prr-mu --workers 0 --out OUT/s --no-progress", ["--workers", "0"]),
    ("study prr-mu --seed -1 --out OUT/s --no-progress", ["--seed", "-1"]),
    ("study prr-mu --out FX/good.txt --no-progress", ["FX/good.txt", "is a file"]),
    # issue 13: allocations sized by input are checked first (no abort, no OOM killer)
    ("stats --expected 1000000000000 FX/x.seq", ["out of memory", "FX/x.seq", "expected = 1000000000000", "needs 125 GB"]),
    ("stats FX/hugehdr.seq", ["out of memory", "FX/hugehdr.seq", "expected = 1000000000000000000"]),
    ("stats FX/stray.seq", ["FX/stray.seq:3", "sequence number 68719476735 is far beyond", "--expected"]),
    ("study prr-mu --slots 1000000000000 --out OUT/s --no-progress", ["--slots = 1000000000000", "GB"]),
    ("study prr-mu --slots 99999999999999999999 --out OUT/s --no-progress", ["--slots", "not in the range"]),
    # unbounded or unrepresentable parameters
    ("gen ctmc:good=1e-9,bad=1e-9 -n 1000 -o OUT/x.txt", ["good = 1e-9 s", "at least 1 µs"]),
    ("gen ctmc:good=1e-12,bad=1e-12 -n 1000 -o OUT/x.txt", ["good = 1e-12 s", "at least 1 µs"]),
    ("gen onoff:good=1,bad=1e-8 -n 10 -o OUT/x.txt", ["bad = 1e-8 s", "at least 1 µs"]),
    ("fit-throughput --demo --demo-links 1000000000", ["--demo-links", "1000000000 is not in the range"]),
    # numbers out of range are usage errors naming the option, not OverflowError
    ("gen bernoulli:p=0.1 -n 10 -o OUT/x.txt --seed 18446744073709551616", ["--seed", "18446744073709551616 is not in the range"]),
    ("gen list:drops=18446744073709551616 -n 10 -o OUT/x.txt", ["drops = '18446744073709551616'", "below 2^64"]),
    ("gen list:drops=3,period=99999999999999999999 -n 10 -o OUT/x.txt", ["period = '99999999999999999999'"]),
    ("gen bernoulli:p=0.1 -n 99999999999999999999 -o OUT/x.txt", ["-n", "not in the range"]),
    ("fit-throughput FX/hugeres.csv", ["FX/hugeres.csv:2", "throughput_pps = 1e+300", "[0, 10^12]"]),
    # silent misreads, now refused naming the fix
    ("stats FX/bigbits.txt --format seqlist", ["FX/bigbits.txt", "repeat one already seen", "--format"]),
    ("stats FX/mm.trace", ["FX/mm.trace", "Mahimahi", "read_mahimahi"]),
    ("stats FX/frac.parquet", ["FX/frac.parquet: row 0", "seq = 0.5", "not a sequence number"]),
    ("convert FX/noexp.csv OUT/x.csv --expected 0", ["--expected", "0 is not in the range"]),
    ("gen ge:prr=0.5,mu=1 -n 100 -o OUT/x.txt", ["mu = 1", "stuck in one state"]),
    ("fit-throughput FX/negres.csv", ["FX/negres.csv:2", "throughput_pps = -1.0", "[0, 10^12]"]),
    ("study prr-mu --noise dbm0 --out OUT/s --no-progress", ["--noise has no effect with --dataset synthetic"]),
    ("study prr-mu --dataset rutgers --links 5 --out OUT/s --no-progress", ["--links has no effect with --dataset rutgers"]),
    ("study prr-mu --traces FX/badtraces --targets 0.5 --out OUT/s --no-progress", ["--targets has no effect with --traces"]),
    # messages say what is wrong
    ("validate padhye --duration -1s", ["--duration", "'-1s': must be positive"]),
    ("validate padhye --duration 1e12s", ["--duration", "at most 1.84e+10 s"]),
    ("validate padhye --rate 10Mbitz", ["--rate", "'10Mbitz'"]),
    ("predict --prr 1.5 --rtt 100ms --mu 0.1", ["--prr = 1.5"]),
    ("predict --prr 0.2 --rtt 100ms --strict", ["--prr = 0.2", "outside its regime"]),
    ("stats FX/good.txt --bogus", ["No such option '--bogus'", "burstlab stats -h"]),
    ("validate padhye --rate 0", ["--rate", "'0'", "must be positive"]),
    ("sim --duration 1e9s", ["--duration = 1000000000", "less than 10^9 s"]),
    # sim: unbounded windows are bounded by what the run can send, saying so
    ("sim --init-cwnd 4294967296 --duration 1s", ["--init-cwnd = 4294967296", "at most 1303 segments", "10 Mb/s link", "1 s"]),
    ("sim --init-cwnd 1000000000", ["--init-cwnd = 1000000000", "at most 120294 segments", "100 s"]),
    ("sim --init-cwnd 101 --size 100kB", ["--init-cwnd = 101", "at most 100 segments", "100000 bytes"]),
    ("sim --trace FX/good.txt --init-cwnd 1000000000", ["--init-cwnd = 1000000000", "the trace has 10 slots"]),
    # sim: replicates, variants, plots
    ("sim --seeds 0 --duration 1s", ["--seeds", "0 is not in the range"]),
    ("sim --seed 18446744073709551615 --seeds 2 --duration 1s", ["--seeds", "pass 2^64 − 1"]),
    ("sim --trace FX/good.txt --seeds 3", ["--seeds", "no effect with --trace", "every seed gives the same run"]),
    ("sim --seeds 2 --series OUT/s.npz --duration 1s", ["--series writes the series of one run"]),
    ("sim --tcp reno,sack --series OUT/s.npz --duration 1s", ["--series writes the series of one run"]),
    ("sim --tcp reno,bbr9 --duration 1s", ["--tcp", "'bbr9' is not a variant", "newreno", "CC/RECOVERY"]),
    ("sim --tcp reno,reno --duration 1s", ["--tcp", "'reno' is given twice"]),
    ("sim --tcp reno,newreno --recovery sack --duration 1s", ["--tcp reno and newreno are the same TCP here"]),
    ("sim --tcp cubic/bogus --duration 1s", ["'cubic/bogus' is not a variant"]),
    ("sim --plot FX/good.txt --duration 1s", ["--plot", "FX/good.txt", "is a file"]),
]


@pytest.mark.parametrize(("args", "expect"), CASES, ids=[c[0] for c in CASES])
def test_bad_input(args: str, expect: list[str], fx: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a.replace("FX", str(fx)).replace("OUT", str(out)) for a in args.split()]
    rc, err = _run(argv, capsys)
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    # one line `error: ...`, click's usage errors included (issue 13)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    msg = lines[0]
    for e in expect:
        e = e.replace("FX", str(fx)).replace("OUT", str(out))
        assert e in msg, f"{e!r} not in {msg!r}"
    assert _left(out) == [], "a failed command left output behind"


def test_existing_output_is_replaced_whole(fx: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An existing output is overwritten only by a complete new file: a failing command
    leaves it as it was; a succeeding one replaces it (temp file + rename, usual mode)."""
    dst = out / "x.txt"
    dst.write_text("old\n")
    rc, _ = _run(["convert", str(fx / "malformed.txt"), str(dst)], capsys)
    assert rc == 2 and dst.read_text() == "old\n" and _left(out) == ["x.txt"]
    rc, _ = _run(["convert", str(fx / "good.txt"), str(dst)], capsys)
    assert rc == 0 and dst.read_bytes() == FILES["good.txt"] and _left(out) == ["x.txt"]
    um = os.umask(0)
    os.umask(um)
    assert dst.stat().st_mode & 0o777 == 0o666 & ~um


def test_unwritable_output_names_the_path(fx: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() == 0:  # root writes anywhere; use a path under a file instead
        target = fx / "good.txt" / "sub" / "x.txt"
    else:
        ro = out / "ro"
        ro.mkdir(mode=0o500)
        target = ro / "x.txt"
    rc, err = _run(["gen", "bernoulli:p=0.1", "-n", "10", "-o", str(target)], capsys)
    assert rc == 2 and err.startswith(f"error: {target}: ") and "Errno" not in err and ".tmp" not in err


def test_internal_error_is_one_line(monkeypatch: pytest.MonkeyPatch, fx: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An unexpected exception (a bug) is still one line and exit 3, unless BURSTLAB_DEBUG."""
    import burstlab.stats as st

    def boom(*a: object, **k: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(st, "trace_stats", boom)
    monkeypatch.delenv("BURSTLAB_DEBUG", raising=False)
    rc, err = _run(["stats", str(fx / "good.txt")], capsys)
    assert rc == 3 and err.startswith("error: internal error (KeyError: 'boom')") and len(err.strip().splitlines()) == 1
    monkeypatch.setenv("BURSTLAB_DEBUG", "1")
    with pytest.raises(KeyError):
        main(["stats", str(fx / "good.txt")])


# --------------------------------------------------------------------------- Python API


def _empty() -> burstlab.Trace:
    return burstlab.Trace(np.zeros(0, dtype=np.uint8))


API_CASES = [
    ("read_trace empty", lambda fx: burstlab.io.read_trace(fx / "empty.txt"), burstlab.EmptyInputError, "empty.txt"),
    ("read_trace malformed", lambda fx: burstlab.io.read_trace(fx / "malformed.txt"), burstlab.TraceFormatError, 'malformed.txt:3: expected a single 0 or 1: "x"'),
    ("read_trace bad csv", lambda fx: burstlab.io.read_trace(fx / "bad.csv"), burstlab.TraceFormatError, "bad.csv:4"),
    ("read_trace bad format", lambda fx: burstlab.io.read_trace(fx / "good.txt", "nosuch"), burstlab.ParameterError, "format = 'nosuch'"),
    ("Trace of 2", lambda fx: burstlab.Trace(np.array([0, 1, 2])), burstlab.ParameterError, "0 or 1"),
    ("GE fit empty", lambda fx: burstlab.models.GilbertElliottModel().fit(_empty()), burstlab.EmptyInputError, "empty trace"),
    ("HMM fit empty", lambda fx: burstlab.models.HMMModel().fit(_empty()), burstlab.EmptyInputError, "empty trace"),
    ("Bernoulli fit empty", lambda fx: burstlab.models.BernoulliModel().fit(_empty()), burstlab.EmptyInputError, "empty trace"),
    ("RunLength fit lossless", lambda fx: burstlab.models.RunLengthModel().fit(burstlab.Trace(np.ones(5, np.uint8))), burstlab.ParameterError, "no loss"),
    ("load_model fitted list", lambda fx: burstlab.models.load_model(fx / "fittedlist.json"), burstlab.ParameterError, "fittedlist.json"),
    ("from_dict fitted missing", lambda fx: burstlab.models.LossModelBase.from_dict({"model": "gilbert-elliott", "fitted": {"b_": 0.1}}), burstlab.ParameterError, "g_ is missing"),
    ("sim.run not a scenario", lambda fx: burstlab.sim.run(None), burstlab.ParameterError, "scenario"),
    ("sim.run rate text", lambda fx: burstlab.sim.run(burstlab.sim.Scenario(forward=burstlab.sim.Link(rate="x"))), burstlab.ParameterError, "rate = 'x'"),
    ("sim.run variant", lambda fx: burstlab.sim.run(burstlab.sim.Scenario(tcp=burstlab.sim.TcpConfig(variant="foo"))), burstlab.ParameterError, "variant = foo"),
    ("run_trace empty", lambda fx: burstlab.sim.run_trace(np.zeros(0, np.uint8)), burstlab.EmptyInputError, "empty"),
    ("run_trace slot", lambda fx: burstlab.sim.run_trace(np.ones(3, np.uint8), slot=-1), burstlab.ParameterError, "slot = -1"),
    ("loss spec", lambda fx: burstlab.lossspec.parse_loss_spec("ge:prr=2,mu=0.5"), burstlab.ParameterError, "prr = 2"),
    ("read_results", lambda fx: burstlab.fits.read_results(fx / "prrrange.csv"), burstlab.ParameterError, "prrrange.csv:3: prr = 1.5"),
    # issue 13: an impossible size is a MemoryError, never an abort of the interpreter
    ("sample 10^13", lambda fx: burstlab.lossspec.parse_loss_spec("bernoulli:p=0.1").sample(10**13, 1), MemoryError, "sampling 10000000000000 packets needs"),
    ("filled 2^62", lambda fx: burstlab._core.BitTrace.filled(2**62, True), MemoryError, "needs"),
    ("random_state 2^64", lambda fx: burstlab.models.BernoulliModel(p=0.1).sample(10, random_state=2**64), burstlab.ParameterError, "random_state"),
    ("read_trace mahimahi", lambda fx: burstlab.io.read_trace(fx / "mm.trace"), burstlab.TraceFormatError, "read_mahimahi"),
    ("read_mahimahi bits", lambda fx: burstlab.io.read_mahimahi(fx / "malformed.txt"), burstlab.TraceFormatError, 'malformed.txt:3: expected one whole number of milliseconds per line (a Mahimahi delivery opportunity): "x"'),
    ("read_mahimahi missing", lambda fx: burstlab.io.read_mahimahi(fx / "nope.down"), FileNotFoundError, "nope.down"),
    ("read_mahimahi empty", lambda fx: burstlab.io.read_mahimahi(fx / "blank.txt"), burstlab.EmptyInputError, "blank.txt: empty file"),
]


@pytest.mark.parametrize(("name", "call", "exc", "text"), API_CASES, ids=[c[0] for c in API_CASES])
def test_api_raises_burstlab_errors(name: str, call, exc: type, text: str, fx: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc) as ei:
        call(fx)
    assert isinstance(ei.value, (ValueError, MemoryError, OSError)) and text in str(ei.value)


def test_error_classes_are_value_errors() -> None:
    for e in (burstlab.ParameterError, burstlab.TraceFormatError, burstlab.EmptyInputError):
        assert issubclass(e, burstlab.BurstlabError) and issubclass(e, ValueError)


def test_gen_good_model_still_works(fx: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The stricter model loader still reads what `fit --save` writes."""
    from burstlab.models import GilbertElliottModel

    m = GilbertElliottModel(b=0.05, g=0.4)
    m.save(out / "ge.json")
    assert json.loads((out / "ge.json").read_text())["model"] == "gilbert-elliott"
    rc, err = _run(["gen", str(out / "ge.json"), "-n", "100", "-o", str(out / "g.txt")], capsys)
    assert rc == 0, err
    assert len((out / "g.txt").read_text().split()) == 100


def test_output_folder_fails_early_and_is_removed(fx: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """fit --plot/--save under a file fails before fitting; a folder made for a command
    that then fails is removed again (burstlab.io.output_dir)."""
    rc, err = _run(["fit", str(fx / "good.txt"), "--models", "bernoulli-fer", "--save", str(fx / "good.txt" / "m")], capsys)
    assert rc == 2 and err.startswith(f"error: {fx / 'good.txt' / 'm'}: ")
    rc, err = _run(["fit", str(fx / "good.txt"), "--models", "bogus", "--save", str(out / "m")], capsys)
    assert rc == 2 and "models = 'bogus'" in err and _left(out) == []


@pytest.mark.parametrize("name", sorted(burstlab.models.ALL_MODELS) + sorted(burstlab.models._EXTRA_MODELS))
def test_every_model_fit_on_empty_trace(name: str) -> None:
    with pytest.raises(burstlab.EmptyInputError, match="empty trace"):
        burstlab.models.make_model(name).fit(_empty())
