#!/usr/bin/env python3
"""The set-aside split of rows.json (see SPLIT.md). Deterministic; run once.

1. Rows whose published number is already in front of the engineers — quoted
   in issue 37 or listed in shared/reference/published-figures.md ("Runs at
   scale") — cannot be unseen: they always go to train (SEEN below).
2. The other rows are sorted by SHA-256 of their name (UTF-8, hex digest,
   ascending) and the first ceil(len(rows) / 3) of them are held out.
"""
import hashlib
import json
import math

SEEN = {
    # issue 37 and published-figures.md, "Runs at scale"
    "megascale-megatron-175b-256", "megascale-megatron-175b-1024", "megascale-megatron-175b-3072", "megascale-megatron-175b-12288",
    "megascale-megatron-530b-2240", "megascale-megatron-530b-11200",
    "bloom-176b-384-a100",
    "dgxc-gpt3-175b-bf16-128", "dgxc-gpt3-175b-bf16-2048",
    "dgxc-llama31-70b-bf16-64", "dgxc-llama31-405b-bf16-576",
    "dgxc-nemotron4-340b-bf16-128", "dgxc-nemotron4-340b-bf16-2048",
}


def h(name):
    return hashlib.sha256(name.encode("utf-8")).hexdigest()


def main():
    rows = json.load(open("rows.json"))
    names = {r["name"] for r in rows}
    assert SEEN <= names, SEEN - names
    k = math.ceil(len(rows) / 3)
    eligible = sorted((r for r in rows if r["name"] not in SEEN), key=lambda r: h(r["name"]))
    held = {r["name"] for r in eligible[:k]}
    train = [r for r in rows if r["name"] not in held]
    heldout = [r for r in rows if r["name"] in held]
    for r in train:
        r["split"] = "train"
        r["seen_before_split"] = r["name"] in SEEN
    for r in heldout:
        r["split"] = "heldout"
        r["seen_before_split"] = False
    with open("train.json", "w") as f:
        json.dump(train, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open("heldout.json", "w") as f:
        json.dump(heldout, f, indent=1, ensure_ascii=False)
        f.write("\n")
    digest = hashlib.sha256(open("heldout.json", "rb").read()).hexdigest()
    print(f"rows {len(rows)}, seen {len(SEEN)}, eligible {len(eligible)}, held out {len(heldout)}, train {len(train)}")
    print("cut: held-out names' SHA-256 run up to", h(eligible[k - 1]["name"])[:16], "; first train eligible", h(eligible[k]["name"])[:16])
    print("sha256(heldout.json) =", digest)


if __name__ == "__main__":
    main()
