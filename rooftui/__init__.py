"""rooftui: hierarchical roofline analysis of GPU kernels in the terminal."""

__version__ = "0.1.0"
