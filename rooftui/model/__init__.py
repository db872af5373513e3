"""Pure data: the kernel table, the ceilings and the metric formulas. No I/O, no UI."""
