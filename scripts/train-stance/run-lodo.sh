#!/bin/sh
# The whole leave-one-domain-out recipe: prep, one model per held-out claim domain (trained in
# parallel, one thread each), the ONNX check, the held-out gold sentences read alone, and the
# claim evaluation that reads each domain
# with the model trained without it, beside the lexical model in the same run.
#   sh scripts/train-stance/run-lodo.sh [OUT]   (default stance-model/, git-ignored; needs dist/)
set -e
OUT=${1:-stance-model}
EPOCHS=${EPOCHS:-4}
node scripts/train-stance/prep.mjs --out "$OUT"
start=$(date +%s)
for f in averitec check-covid fool-me-twice; do
  nice /usr/bin/python3 scripts/train-stance/train.py "$OUT/without-$f" --epochs "$EPOCHS" > "$OUT/without-$f.log" 2>&1 &
done
wait
echo "training: $(( $(date +%s) - start )) s wall for the three folds"
for f in averitec check-covid fool-me-twice; do
  tail -n 1 "$OUT/without-$f.log"
  node scripts/train-stance/check-onnx.mjs "$OUT/without-$f"
  node scripts/train-stance/gold-pairs.mjs "$OUT/without-$f"
done
node scripts/eval-claims.mjs --cache "$OUT/eval-cache.json" \
  --nli-fold "averitec=$OUT/without-averitec,check-covid=$OUT/without-check-covid,fool-me-twice=$OUT/without-fool-me-twice" | tee "$OUT/lodo.txt"
