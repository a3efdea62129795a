"""Shared by the trace checks of tests/trace (run with /usr/bin/python3,
which has python3-otf2).

Importing it fixes python3-otf2 3.0.2's reading of InterComm definitions:
it maps an InterComm's fields onto Comm's (name, group, parent, flags)
followed by its own; the fix keeps the name and its own fields.
"""
import sys

import otf2.definitions as D

_f = list(D.InterComm._fields)
if len(_f) == 8:
    D.InterComm._fields = tuple([_f[0]] + _f[4:])


class Failures(list):
    """The problems a check found. Calling it adds one and prints it on
    stderr as "<check>: <problem>" (only the first `shown`, if given)."""

    def __init__(self, check, shown=None):
        super().__init__()
        self.check, self.shown = check, shown

    def __call__(self, msg):
        self.append(msg)
        if self.shown is None or len(self) <= self.shown:
            print(f"{self.check}: {msg}", file=sys.stderr)
