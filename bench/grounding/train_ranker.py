"""Trains the local classifier's learned ranker (issue 22) and writes its weights.

    cargo run --release -p hark-classify --features embeddings --example ranker_features -- \
        --field bench/grounding/field --rows bench/grounding/rows.jsonl --out /tmp/ranker
    target/py-venv/bin/python bench/grounding/train_ranker.py /tmp/ranker \
        --write crates/hark-classify/src/local/ranker/weights.json

The features come from the Rust example (the same code the classifier runs). The model: per
option a score `linear·x + w2·tanh(W1·x + b1)` over the standardised features `x`, "nothing
fits" a linear score over its own features, one softmax over the options and "nothing fits"
per question; trained on the train split (loss: -log of the probability of the right answers),
the hidden size and L2 chosen by dev top-1, then one temperature fitted on dev (least dev
log-loss), so the probability is calibrated. The test split is read only with --test, once,
at the end. Needs numpy only (the repository's Python venv has it: scripts/python-env.sh).
"""

import argparse
import json
import pickle
import sys
from collections import defaultdict

import numpy as np

FEATURES = None  # read from the Rust source
THRESHOLD = 0.5
BINS = 10


def feature_names():
    import os
    import re

    src = open(
        os.path.join(
            os.path.dirname(__file__),
            "../../crates/hark-classify/src/local/ranker/features.rs",
        )
    ).read()

    def names(const):
        m = re.search(const + r".*?= \[(.*?)\];", src, re.S)
        return re.findall(r'"(\w+)"', m.group(1))

    return names("pub const FEATURE_NAMES"), names("pub const NONE_FEATURE_NAMES")


class Data:
    bench_weight = 1.0

    def __init__(self, prefix, F, G):
        self.meta = [json.loads(l) for l in open(prefix + ".jsonl")]
        X = np.fromfile(prefix + ".options.f32", dtype="<f4").reshape(-1, F)
        N = np.fromfile(prefix + ".none.f32", dtype="<f4").reshape(-1, G)
        assert N.shape[0] == len(self.meta), "none rows and questions differ"
        self.X, self.N = X.astype(np.float64), N.astype(np.float64)

    def subset(self, keep):
        """(X, N, offsets, counts, target mask, none flags, metas) of the questions kept."""
        idx = [i for i, m in enumerate(self.meta) if keep(m)]
        metas = [self.meta[i] for i in idx]
        rows = np.concatenate(
            [np.arange(m["offset"], m["offset"] + m["n"]) for m in metas]
        )
        X = self.X[rows]
        N = self.N[idx]
        counts = np.array([m["n"] for m in metas])
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
        target = np.zeros(len(rows))
        for q, m in enumerate(metas):
            for t in m["targets"]:
                target[offsets[q] + t] = 1.0
        none = np.array([1.0 if m["none"] or not m["targets"] else 0.0 for m in metas])
        weight = np.array([self.bench_weight if m["kind"].startswith("bench:") else 1.0 for m in metas])
        return X, N, offsets, counts, target, none, metas, weight


def forward(p, X, N, offsets, counts):
    Z = (X - p["mean"]) / p["scale"]
    A = Z @ p["w1"].T + p["b1"]
    H = np.tanh(A)
    s = Z @ p["linear"] + H @ p["w2"]
    u = N @ p["none"]
    return Z, H, s, u


def softmax_groups(s, u, offsets, counts, T=1.0):
    s, u = s / T, u / T
    qid = np.repeat(np.arange(len(counts)), counts)
    m = np.maximum(np.maximum.reduceat(s, offsets), u)
    es = np.exp(s - m[qid])
    eu = np.exp(u - m)
    tot = np.add.reduceat(es, offsets) + eu
    return es / tot[qid], eu / tot, qid


def loss_grad(p, data, l2):
    X, N, offsets, counts, target, none, _, weight = data
    Z, H, s, u = forward(p, X, N, offsets, counts)
    ps, pu, qid = softmax_groups(s, u, offsets, counts)
    right = np.add.reduceat(ps * target, offsets) + pu * none
    right = np.maximum(right, 1e-12)
    w = weight / weight.sum()
    loss = -(w * np.log(right)).sum()
    # d loss / d logit = p - p*[target]/right, a weighted mean over questions
    gs = (ps - ps * target / right[qid]) * w[qid]
    gu = (pu - pu * none / right) * w
    g = {}
    g["linear"] = Z.T @ gs + l2 * p["linear"]
    g["w2"] = H.T @ gs
    dA = np.outer(gs, p["w2"]) * (1 - H * H)
    g["w1"] = dA.T @ Z + l2 * p["w1"]
    g["b1"] = dA.sum(0)
    g["none"] = N.T @ gu
    loss += 0.5 * l2 * ((p["linear"] ** 2).sum() + (p["w1"] ** 2).sum())
    return loss, g


def train(data, hidden, l2, steps=600, lr=0.03, seed=0):
    X = data[0]
    F, G = X.shape[1], data[1].shape[1]
    rng = np.random.default_rng(seed)
    mean = X.mean(0)
    scale = X.std(0)
    scale[scale < 1e-6] = 1.0
    p = {
        "mean": mean,
        "scale": scale,
        "w1": rng.normal(0, 0.3, (hidden, F)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0, 0.3, hidden),
        "linear": np.zeros(F),
        "none": np.zeros(G),
    }
    keys = ["w1", "b1", "w2", "linear", "none"]
    m = {k: np.zeros_like(p[k]) for k in keys}
    v = {k: np.zeros_like(p[k]) for k in keys}
    for t in range(1, steps + 1):
        loss, g = loss_grad(p, data, l2)
        for k in keys:
            m[k] = 0.9 * m[k] + 0.1 * g[k]
            v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
            mh = m[k] / (1 - 0.9**t)
            vh = v[k] / (1 - 0.999**t)
            p[k] -= lr * mh / (np.sqrt(vh) + 1e-8)
    p["temperature"] = 1.0
    return p, loss


def merged(members):
    """The average of networks trained on the same data (the same standardisation) as one
    network: their hidden units side by side with each output weight divided by their number,
    the linear and "nothing fits" weights averaged. Its scores are exactly the mean of theirs."""
    k = len(members)
    return {
        "mean": members[0]["mean"],
        "scale": members[0]["scale"],
        "w1": np.vstack([m["w1"] for m in members]),
        "b1": np.concatenate([m["b1"] for m in members]),
        "w2": np.concatenate([m["w2"] for m in members]) / k,
        "linear": np.mean([m["linear"] for m in members], axis=0),
        "none": np.mean([m["none"] for m in members], axis=0),
        "temperature": 1.0,
    }


def evaluate(p, data, T=None):
    X, N, offsets, counts, target, none, metas, _ = data
    T = p["temperature"] if T is None else T
    _, _, s, u = forward(p, X, N, offsets, counts)
    ps, pu, qid = softmax_groups(s, u, offsets, counts, T)
    out = []
    for q in range(len(counts)):
        a, n = offsets[q], counts[q]
        row = ps[a : a + n]
        best = int(row.argmax())
        conf = float(row[best])
        tset = set(metas[q]["targets"])
        is_none = bool(none[q])
        answer = best if conf >= THRESHOLD else None
        right = (answer is None and is_none) or (answer is not None and answer in tset)
        out.append(
            {
                "right": right,
                "conf": conf,
                "best_right": best in tset,
                "answer_none": answer is None,
                "none": is_none,
                "nll": -np.log(max(float(row[list(tset)].sum() if tset else pu[q]), 1e-12)),
                **{k: metas[q][k] for k in ("lang", "kind", "page", "description")},
            }
        )
    return out


def ece(results):
    bins = defaultdict(list)
    for r in results:
        bins[min(int(r["conf"] * BINS), BINS - 1)].append(r)
    n = len(results)
    return sum(
        len(b) / n * abs(np.mean([x["conf"] for x in b]) - np.mean([x["best_right"] for x in b]))
        for b in bins.values()
    )


def report(name, results):
    n = len(results)
    acc = np.mean([r["right"] for r in results])
    nones = [r for r in results if r["answer_none"]]
    prec = np.mean([r["none"] for r in nones]) if nones else float("nan")
    truth = [r for r in results if r["none"]]
    rec = np.mean([r["answer_none"] for r in truth]) if truth else float("nan")
    print(
        f"{name}: {n} rows, top-1 {acc:.3f}, none precision {prec:.3f} recall {rec:.3f}, "
        f"ECE {ece(results):.3f}, log-loss {np.mean([r['nll'] for r in results]):.3f}"
    )
    for key in ("lang", "kind"):
        groups = defaultdict(list)
        for r in results:
            k = r[key] if key == "lang" or not r[key].startswith("bench:") else "bench"
            groups[k].append(r["right"])
        print(
            f"  by {key}: "
            + ", ".join(f"{k} {np.mean(v):.3f} ({len(v)})" for k, v in sorted(groups.items()))
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--write", help="weights.json to write")
    ap.add_argument("--test", action="store_true", help="also report the test split (once, at the end)")
    ap.add_argument("--hidden", default="8,16,32")
    ap.add_argument("--l2", default="0.0003,0.003")
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--show", type=int, default=0, help="print N dev misses")
    ap.add_argument(
        "--seeds", default="0",
        help="initial weights' seeds to try (chosen by dev top-1); empty: train none, use --members-in",
    )
    ap.add_argument(
        "--ensemble", action="store_true",
        help="average the networks of all --seeds (one wider network: their hidden units side by side, "
        "each score divided by their number) instead of keeping the best one",
    )
    ap.add_argument(
        "--drop", default="",
        help="option features to leave out (comma-separated names; their weights are zero)",
    )
    ap.add_argument(
        "--bench-weight", type=float, default=1.0,
        help="weight of the older benchmark's rows in the training loss (it has far fewer rows)",
    )
    ap.add_argument(
        "--members-out", help="save the networks trained here (a pickle), to ensemble with --members-in",
    )
    ap.add_argument(
        "--members-in", default="",
        help="networks saved by --members-out in other runs (comma-separated), added to this run's "
        "(train them in parallel processes, then ensemble them here)",
    )
    args = ap.parse_args()
    F, G = feature_names()
    Data.bench_weight = args.bench_weight
    data = Data(args.prefix, len(F), len(G))
    for name in filter(None, args.drop.split(",")):
        data.X[:, F.index(name)] = 0.0  # a constant column: standardised to zero, no weight
    train_d = data.subset(lambda m: m["split"] == "train")
    dev_d = data.subset(lambda m: m["split"] == "dev")
    print(f"train {len(train_d[3])} questions, dev {len(dev_d[3])}")
    best = None
    trained = []
    for h in [int(x) for x in args.hidden.split(",")]:
        for l2 in [float(x) for x in args.l2.split(",")]:
            for seed in [int(x) for x in filter(None, args.seeds.split(","))]:
                p, loss = train(train_d, h, l2, steps=args.steps, seed=seed)
                res = evaluate(p, dev_d)
                acc = np.mean([r["right"] for r in res])
                print(f"hidden {h} l2 {l2} seed {seed}: train loss {loss:.3f}, dev top-1 {acc:.3f}")
                trained.append((acc, h, l2, seed, p))
                if best is None or acc > best[0]:
                    best = (acc, h, l2, seed, p)
    if args.members_out:
        with open(args.members_out, "wb") as f:
            pickle.dump(trained, f)
    for path in filter(None, args.members_in.split(",")):
        with open(path, "rb") as f:
            for acc, h_, l2_, seed_, p_ in pickle.load(f):
                print(f"loaded hidden {h_} l2 {l2_} seed {seed_}: dev top-1 {acc:.3f}")
                trained.append((acc, h_, l2_, seed_, p_))
                if best is None or acc > best[0]:
                    best = (acc, h_, l2_, seed_, p_)
    _, h, l2, seed, p = best
    if args.ensemble:
        members = [m for m in trained if m[1] == h and m[2] == l2]
        p = merged([m[4] for m in members])
        seed = ",".join(str(m[3]) for m in members)
        res = evaluate(p, dev_d)
        print(f"ensemble of {len(members)} (hidden {h} l2 {l2}): dev top-1 {np.mean([r['right'] for r in res]):.3f}")
    # Temperature: least dev log-loss of the chosen option's correctness.
    temps = np.exp(np.linspace(np.log(0.3), np.log(3.0), 61))
    nll = []
    for T in temps:
        res = evaluate(p, dev_d, T)
        nll.append(np.mean([r["nll"] for r in res]))
    p["temperature"] = float(temps[int(np.argmin(nll))])
    print(f"chosen: hidden {h}, l2 {l2}, seed {seed}, temperature {p['temperature']:.3f}")
    report("train", evaluate(p, train_d))
    dev_res = evaluate(p, dev_d)
    report("dev", dev_res)
    for r in [r for r in dev_res if not r["right"]][: args.show]:
        print(f"  miss [{r['lang']} {r['kind']}] {r['page']}: {r['description']!r} conf {r['conf']:.2f}")
    if args.test:
        report("TEST", evaluate(p, data.subset(lambda m: m["split"] == "test")))
    if args.write:
        out = {
            "features": F,
            "none_features": G,
            **{k: np.asarray(p[k]).tolist() for k in ("mean", "scale", "w1", "b1", "w2", "linear", "none")},
            "temperature": p["temperature"],
        }
        with open(args.write, "w") as f:
            json.dump(out, f, separators=(",", ":"))
            f.write("\n")
        print(f"wrote {args.write}")


if __name__ == "__main__":
    sys.exit(main())
