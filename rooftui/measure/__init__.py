"""``rooftui measure``: empirical ceilings from ERT-style micro-kernels.

The CUDA C++ kernels live in ``rooftui/measure/cuda/``; this package compiles them
at run time with NVRTC (``gpu``), runs and checks them (``compute``,
``bandwidth``), finds the bandwidth plateaus (``plateaus``) and writes the
ceilings file (``results``). ``runner`` ties one GPU's run together. Only
``gpu`` imports CUDA, and only when a measurement starts.
"""
