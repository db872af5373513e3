"""The analyzers: each takes a TraceContext and returns findings, costliest first."""
