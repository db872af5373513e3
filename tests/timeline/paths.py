"""Where the timeline tests find the repository and the real sample traces."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_data" / "timeline"
NAIVE_TRACE = SAMPLES / "naive.json.gz"
FIXED_TRACE = SAMPLES / "fixed.json.gz"
