"""The demo newsroom's files: the seed story, as JSON and as text, and its manifests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo"
SEED_JSON = DEMO / "agent-training-stack.json"
SEED_TXT = DEMO / "agent-training-stack.txt"
SEED_MANIFESTS = DEMO / "agent-training-stack.manifests.json"
