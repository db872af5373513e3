"""Collecting the counters rooftui needs: the ncu command line and running it.

``gpus``   which architecture a GPU is (``--arch sm_90``, ``--gpu H100``, nvidia-smi)
``ncu``    finding ncu, naming the report, building its argv
``run``    running ncu, echoing its output, turning its failures into one-line errors

The metric names themselves live only in ``rooftui.model.metrics``.
"""
