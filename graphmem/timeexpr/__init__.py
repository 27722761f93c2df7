"""English time expressions, below both writing and recall.

:mod:`graphmem.timeexpr.parse` finds the expressions in a text ("last August", "two weeks ago", "since
2016") as :class:`~graphmem.timeexpr.parse.TimeMention` records; :mod:`graphmem.timeexpr.ground` turns a
mention and the moment it was said into the days it names. The writer grounds a turn's mentions against
its session date (``graphmem.write.context``); recall frames ground a question's against the history's
dates (``graphmem.recall.frames``).
"""
