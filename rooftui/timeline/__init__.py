"""Timeline analysis: stalls a roofline cannot see, from a profiler trace.

``analyze_trace(path)`` reads a trace (``readers``), builds its steps and busy
time (``context``) and runs the analyzers in ``findings``. Pure data: no Textual.
"""

from rooftui.timeline.analysis import TimelineAnalysis, analyze, analyze_trace
from rooftui.timeline.finding import Finding, Place

__all__ = ["Finding", "Place", "TimelineAnalysis", "analyze", "analyze_trace"]
