#!/usr/bin/python3
"""Train the stance model of one fold folder written by prep.mjs, export it to ONNX, and write
its validation figures beside it.

    /usr/bin/python3 scripts/train-stance/train.py stance-model/without-averitec [--epochs 4]

Architecture: a decomposable-attention network (Parikh et al. 2016) with embeddings trained from
scratch, an exact-match flag per token and a width-3 convolution for local context. Why this and
not a transformer: on two shared CPU cores, with ~45k pairs and no pretrained weights, attention
between the two sentences is the part that carries the signal (which claim words the passage
states, and how); a token-mixing stack would need far more data and time to learn what the
alignment gives for free. It reads one [CLS] passage [SEP] claim [SEP] sequence, as any NLI
cross-encoder does, so the engine's ONNX runner and pair encoder run it unchanged: the two sides
are told apart by token_type_ids inside the graph.

Writes model.onnx, validation.json (held-out NLI pairs: FEVER-RTE binary accuracy, e-SNLI
accuracy and per-class F1; the held-out claim domain's gold pairs, for information) and
train-log.txt.
"""
import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as Fn
from sklearn.metrics import f1_score

ap = argparse.ArgumentParser()
ap.add_argument('dir')
ap.add_argument('--epochs', type=int, default=4)
ap.add_argument('--dim', type=int, default=64)
ap.add_argument('--batch', type=int, default=64)
ap.add_argument('--lr', type=float, default=2e-3)
ap.add_argument('--seed', type=int, default=1)
ap.add_argument('--threads', type=int, default=1)
a = ap.parse_args()

random.seed(a.seed)
np.random.seed(a.seed)
torch.manual_seed(a.seed)
torch.set_num_threads(a.threads)
D = a.dir
log_lines = []


def log(*xs):
    s = ' '.join(str(x) for x in xs)
    print(s, flush=True)
    log_lines.append(s)


def load(name):
    path = os.path.join(D, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


cfg = json.load(open(os.path.join(D, 'config.json')))
V = cfg['vocab_size']
train = load('train.jsonl')
vals = {'fever': load('val-fever.jsonl'), 'esnli': load('val-esnli.jsonl'), 'heldout-domain': load('heldout-domain.jsonl')}
PAD, UNK, CLS, SEP = 0, 1, 2, 3
NEG = -1e4


class Stance(nn.Module):
    def __init__(self, V, d):
        super().__init__()
        # Sparse gradients: a step updates only the rows of the words in its batch.
        self.emb = nn.Embedding(V, d, padding_idx=PAD, sparse=True)
        self.proj = nn.Linear(d + 1, d)
        self.ctx = nn.Conv1d(d + 1, d, 3, padding=1)
        self.F = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.G = nn.Sequential(nn.Linear(4 * d, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.H = nn.Sequential(nn.Linear(4 * d, d), nn.ReLU(), nn.Dropout(0.2), nn.Linear(d, 3))
        self.drop = nn.Dropout(0.15)

    def forward(self, input_ids, attention_mask, token_type_ids):
        ids = input_ids
        m = attention_mask.float()
        t = token_type_ids.float()
        word = ((ids != CLS) & (ids != SEP)).float() * m
        pm = word * (1 - t)  # passage (premise) tokens
        hm = word * t  # claim (hypothesis) tokens
        # Exact match: does this token occur on the other side ([UNK] matches nothing)?
        eq = (ids.unsqueeze(2) == ids.unsqueeze(1)).float() * (ids != UNK).float().unsqueeze(2)
        em = (eq * hm.unsqueeze(1)).max(2)[0] * pm + (eq * pm.unsqueeze(1)).max(2)[0] * hm
        x = torch.cat([self.drop(self.emb(ids)), em.unsqueeze(2)], 2)
        h = torch.relu(self.proj(x)) + torch.relu(self.ctx(x.transpose(1, 2))).transpose(1, 2)
        f = self.F(h)
        e = torch.bmm(f, f.transpose(1, 2))
        # Each passage token attends over the claim's tokens, and each claim token over the passage's.
        beta = torch.bmm(torch.softmax(e + (1 - hm.unsqueeze(1)) * NEG, 2), h)
        alpha = torch.bmm(torch.softmax(e.transpose(1, 2) + (1 - pm.unsqueeze(1)) * NEG, 2), h)
        v1 = self.G(torch.cat([h, beta, h - beta, h * beta], 2))
        v2 = self.G(torch.cat([h, alpha, h - alpha, h * alpha], 2))

        def pool(v, mk):
            mk3 = mk.unsqueeze(2)
            mean = (v * mk3).sum(1) / mk3.sum(1).clamp(min=1)
            mx = (v + (mk3 - 1) * -NEG).max(1)[0]
            return mean, mx

        p_mean, p_max = pool(v1, pm)
        h_mean, h_max = pool(v2, hm)
        return self.H(torch.cat([p_mean, p_max, h_mean, h_max], 1))


def batches(rows, size, shuffle):
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]['ids']))
    chunks = [order[i:i + size] for i in range(0, len(order), size)]
    if shuffle:
        random.shuffle(chunks)
    for idx in chunks:
        L = max(len(rows[i]['ids']) for i in idx)
        ids = np.zeros((len(idx), L), dtype=np.int64)
        mask = np.zeros((len(idx), L), dtype=np.int64)
        types = np.zeros((len(idx), L), dtype=np.int64)
        for r, i in enumerate(idx):
            n = len(rows[i]['ids'])
            ids[r, :n] = rows[i]['ids']
            mask[r, :n] = 1
            types[r, :n] = rows[i]['typeIds']
        y = torch.tensor([rows[i]['label'] for i in idx])
        w = torch.tensor([rows[i]['weight'] for i in idx], dtype=torch.float32)
        yield idx, torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types), y, w


def loss_of(logits, y, w):
    lse = torch.logsumexp(logits, 1)
    three = y < 3
    # Labels 0-2: cross-entropy. Label 3 (FEVER not_entailment): -log(P(neutral) + P(contradiction)).
    pick = logits.gather(1, y.clamp(max=2).unsqueeze(1)).squeeze(1)
    either = torch.logsumexp(logits[:, 1:3], 1)
    nll = torch.where(three, lse - pick, lse - either)
    return (nll * w).sum() / w.sum()


def predict(model, rows):
    model.eval()
    out = np.zeros((len(rows), 3), dtype=np.float32)
    with torch.no_grad():
        for idx, ids, mask, types, _, _ in batches(rows, 256, False):
            out[idx] = torch.softmax(model(ids, mask, types), 1).numpy()
    model.train()
    return out


def figures(rows, p):
    if not rows:
        return None
    y = np.array([r['label'] for r in rows])
    if (y == 3).any() or set(y.tolist()) <= {0, 3}:
        # Binary set (FEVER-RTE): entailment against not_entailment.
        yb = (y == 0).astype(int)
        pb = (p[:, 0] > p[:, 1] + p[:, 2]).astype(int)
        f = f1_score(yb, pb, average=None, labels=[1, 0])
        return {'pairs': len(rows), 'accuracy': round(float((yb == pb).mean()), 4), 'f1': {'entailment': round(float(f[0]), 4), 'not_entailment': round(float(f[1]), 4)}}
    pred = p.argmax(1)
    f = f1_score(y, pred, average=None, labels=[0, 1, 2])
    names = ['entailment', 'neutral', 'contradiction']
    return {'pairs': len(rows), 'accuracy': round(float((y == pred).mean()), 4), 'f1': {n: round(float(v), 4) for n, v in zip(names, f)}, 'macro_f1': round(float(f.mean()), 4),
            'gold_counts': {n: int((y == i).sum()) for i, n in enumerate(names)}}


model = Stance(V, a.dim)
dense = [p for n, p in model.named_parameters() if not n.startswith('emb.')]
opts = [torch.optim.Adam(dense, lr=a.lr), torch.optim.SparseAdam(list(model.emb.parameters()), lr=a.lr)]
steps = max(1, a.epochs * math.ceil(len(train) / a.batch))
scheds = [torch.optim.lr_scheduler.OneCycleLR(o, max_lr=a.lr, total_steps=steps, pct_start=0.1) for o in opts]
log(f'{D}: {len(train)} training pairs, vocabulary {V}, {sum(p.numel() for p in model.parameters())} parameters, {a.epochs} epochs, seed {a.seed}')
t0 = time.time()
for ep in range(a.epochs):
    tot = n = 0
    for _, ids, mask, types, y, w in batches(train, a.batch, True):
        loss = loss_of(model(ids, mask, types), y, w)
        for o in opts:
            o.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(dense, 5.0)
        for o, s in zip(opts, scheds):
            o.step()
            s.step()
        tot += loss.item() * len(y)
        n += len(y)
    fe = figures(vals['fever'], predict(model, vals['fever']))
    es = figures(vals['esnli'], predict(model, vals['esnli']))
    log(f'epoch {ep + 1}: train loss {tot / n:.4f}, FEVER val acc {fe["accuracy"]}, e-SNLI val acc {es["accuracy"]} ({time.time() - t0:.0f} s)')
train_s = time.time() - t0

result = {'fold': cfg.get('held_out_domain') or 'all', 'seed': a.seed, 'epochs': a.epochs, 'dim': a.dim, 'train_pairs': len(train), 'train_seconds': round(train_s),
          'torch': torch.__version__, 'threads': a.threads}
for name, rows in vals.items():
    if rows:
        result[name] = figures(rows, predict(model, rows))
log(json.dumps(result, indent=2))

model.eval()
ex = next(batches(vals['esnli'], 2, False))
torch.onnx.export(model, (ex[1], ex[2], ex[3]), os.path.join(D, 'model.onnx'), input_names=['input_ids', 'attention_mask', 'token_type_ids'], output_names=['logits'],
                  dynamic_axes={'input_ids': {0: 'batch', 1: 'seq'}, 'attention_mask': {0: 'batch', 1: 'seq'}, 'token_type_ids': {0: 'batch', 1: 'seq'}, 'logits': {0: 'batch'}},
                  opset_version=13, do_constant_folding=True)
# The reference scores of a few pairs, so the ONNX runner can be checked against PyTorch.
ref = vals['esnli'][:4]
result['reference'] = [{'ids': r['ids'], 'typeIds': r['typeIds'], 'probs': [round(float(v), 5) for v in pr]} for r, pr in zip(ref, predict(model, ref))]
json.dump(result, open(os.path.join(D, 'validation.json'), 'w'), indent=2)
open(os.path.join(D, 'train-log.txt'), 'w').write('\n'.join(log_lines) + '\n')
log(f'wrote {os.path.join(D, "model.onnx")} ({os.path.getsize(os.path.join(D, "model.onnx"))} bytes)')
