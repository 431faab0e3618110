"""Imported (only) by the multiprocessing forkserver that :mod:`burstlab.sweep` starts,
as its preload: the forkserver then dies with the process that started it, and with it
the workers it forked (:mod:`burstlab._lifetime`). It ignores Ctrl-C from here on: the
forkserver only does so once its other preloads are imported (which can take a second),
and a Ctrl-C meanwhile would print their traceback beside the study's one line. It also sets the
garbage collector's thresholds of a study's processes (:mod:`burstlab._gcpolicy`), which the
workers it forks inherit."""

import signal

from burstlab import _gcpolicy
from burstlab._lifetime import die_with_parent

signal.signal(signal.SIGINT, signal.SIG_IGN)
die_with_parent()
_gcpolicy.tune()
