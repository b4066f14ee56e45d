;; The shared tile pass of luma-pass.ts in WebAssembly: the same sums over the same pixels, in
;; the same integer arithmetic, so every per-tile total is bit-identical to the JavaScript pass
;; (luma-pass.ts addTileRowsJs; a unit test compares them). Why: a one-shot CLI process runs this
;; loop exactly once, and V8 spends most of that run interpreting and compiling the JavaScript;
;; WebAssembly is compiled before its first call.
;;
;; Regenerate luma-pass-wasm.ts after editing: node scripts/build-wasm.mjs
;;
;; Memory layout (byte addresses, all given by the caller):
;;   0..31      scratch: the 8 horizontal-phase sums of the current tile row segment (i32)
;;   32..47     scratch: the same from the eight-pixel steps (i16 lanes)
;;   $sample    the row offsets within a 64-row tile that are read (u8 each, tiles.ts sampledRows)
;;   $gh $gv    per tile × 8 phases, f64: horizontal / vertical grid sums (LumaTileSums.gridH/gridV)
;;   $ns $nc    per tile, f64: Σ|Laplacian| off edges, and how many pixels that was
;;   $br $seen  per tile, f64: brightness sum and pixel count of the noise test
;;   $plane     the luma plane, one byte per pixel, row-major, `width` bytes per row
(module
  (memory (export "memory") 1)

  ;; The sum of the eight signed 16-bit lanes of $v.
  (func $laneSum (param $v v128) (result i32)
    (local $w v128)
    (local.set $w (i32x4.extadd_pairwise_i16x8_s (local.get $v)))
    (i32.add (i32.add (i32x4.extract_lane 0 (local.get $w)) (i32x4.extract_lane 1 (local.get $w)))
             (i32.add (i32x4.extract_lane 2 (local.get $w)) (i32x4.extract_lane 3 (local.get $w)))))

  ;; Tile rows ty0 ≤ ty < ty1, as luma-pass.ts addTileRows: for each sampled row y < yEnd of each
  ;; tile row, each 64-pixel tile segment of columns < xEnd. GRID_EDGE = 24, NOISE_EDGE = 48.
  (func (export "addTileRows")
    (param $plane i32) (param $width i32) (param $cols i32) (param $xEnd i32) (param $yEnd i32)
    (param $ty0 i32) (param $ty1 i32) (param $sample i32) (param $nSample i32)
    (param $gh i32) (param $gv i32) (param $ns i32) (param $nc i32) (param $br i32) (param $seen i32)
    (local $ty i32) (local $s i32) (local $y i32) (local $tc i32) (local $xa i32) (local $xb i32)
    (local $x i32) (local $i i32) (local $t i32) (local $k i32) (local $p i32)
    (local $r0 i32) (local $r1 i32) (local $r2 i32)
    (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $b0 i32) (local $b1 i32) (local $b2 i32)
    (local $c0 i32) (local $c1 i32) (local $c2 i32)
    (local $d i32) (local $m i32) (local $g i32) (local $keep i32)
    (local $vSum i32) (local $nSum i32) (local $nCount i32) (local $bSum i32)
    (local $pa i32) (local $pb i32) (local $pc i32)
    (local $A0 v128) (local $A1 v128) (local $A2 v128) (local $B0 v128) (local $B1 v128) (local $B2 v128)
    (local $C0 v128) (local $C1 v128) (local $C2 v128) (local $D v128) (local $K v128)
    (local $hV v128) (local $vV v128) (local $bV v128) (local $nV v128) (local $cV v128)

    (local.set $ty (local.get $ty0))
    (block $tyDone
      (loop $tyLoop
        (br_if $tyDone (i32.ge_s (local.get $ty) (local.get $ty1)))
        (local.set $s (i32.const 0))
        (block $sDone
          (loop $sLoop
            (br_if $sDone (i32.ge_s (local.get $s) (local.get $nSample)))
            (local.set $y (i32.add (i32.shl (local.get $ty) (i32.const 6))
                                   (i32.load8_u (i32.add (local.get $sample) (local.get $s)))))
            (if (i32.lt_s (local.get $y) (local.get $yEnd))
              (then
                (local.set $r1 (i32.add (local.get $plane) (i32.mul (local.get $y) (local.get $width))))
                (local.set $r0 (i32.sub (local.get $r1) (local.get $width)))
                (local.set $r2 (i32.add (local.get $r1) (local.get $width)))
                (local.set $tc (i32.const 0))
                (block $tcDone
                  (loop $tcLoop
                    (br_if $tcDone (i32.ge_s (local.get $tc) (local.get $cols)))
                    (local.set $xa (i32.shl (local.get $tc) (i32.const 6)))
                    (local.set $xb (i32.add (local.get $xa) (i32.const 64)))
                    (if (i32.gt_s (local.get $xb) (local.get $xEnd)) (then (local.set $xb (local.get $xEnd))))
                    (br_if $tcDone (i32.ge_s (local.get $xa) (local.get $xb)))
                    (local.set $t (i32.add (i32.mul (local.get $ty) (local.get $cols)) (local.get $tc)))
                    (i64.store (i32.const 0) (i64.const 0))
                    (i64.store (i32.const 8) (i64.const 0))
                    (i64.store (i32.const 16) (i64.const 0))
                    (i64.store (i32.const 24) (i64.const 0))
                    (local.set $vSum (i32.const 0))
                    (local.set $nSum (i32.const 0))
                    (local.set $nCount (i32.const 0))
                    (local.set $bSum (i32.const 0))
                    ;; Grid only where the noise window has no upper row (y = 0) or left column (x = 0).
                    (local.set $x
                      (if (result i32) (i32.eqz (local.get $y))
                        (then (local.get $xb))
                        (else (if (result i32) (i32.eqz (local.get $xa)) (then (i32.const 1)) (else (local.get $xa))))))

                    ;; Grid-only segment [xa, x): right and lower neighbour differences below 24.
                    (local.set $i (local.get $xa))
                    (block $gDone
                      (loop $gLoop
                        (br_if $gDone (i32.ge_s (local.get $i) (local.get $x)))
                        (local.set $b1 (i32.load8_u (i32.add (local.get $r1) (local.get $i))))
                        (local.set $d (i32.sub (i32.load8_u (i32.add (i32.add (local.get $r1) (local.get $i)) (i32.const 1))) (local.get $b1)))
                        (local.set $m (i32.shr_s (local.get $d) (i32.const 31)))
                        (local.set $d (i32.sub (i32.xor (local.get $d) (local.get $m)) (local.get $m)))
                        (local.set $p (i32.shl (i32.and (local.get $i) (i32.const 7)) (i32.const 2)))
                        (i32.store (local.get $p)
                          (i32.add (i32.load (local.get $p))
                                   (select (local.get $d) (i32.const 0) (i32.lt_u (local.get $d) (i32.const 24)))))
                        (local.set $d (i32.sub (i32.load8_u (i32.add (local.get $r2) (local.get $i))) (local.get $b1)))
                        (local.set $m (i32.shr_s (local.get $d) (i32.const 31)))
                        (local.set $d (i32.sub (i32.xor (local.get $d) (local.get $m)) (local.get $m)))
                        (local.set $vSum (i32.add (local.get $vSum)
                                                  (select (local.get $d) (i32.const 0) (i32.lt_u (local.get $d) (i32.const 24)))))
                        (local.set $i (i32.add (local.get $i) (i32.const 1)))
                        (br $gLoop)))

                    ;; Fused segment [x, xb): grid sums, Immerkær's Laplacian off edges, brightness,
                    ;; over the 3×3 window of rows a, b, c (r0, r1, r2) and columns i − 1, i, i + 1.
                    ;; Eight pixels at a time where i is a multiple of 8 (lane k is then phase k),
                    ;; one at a time elsewhere (the first tile's column 1..7, a partial last tile).
                    (local.set $hV (v128.const i32x4 0 0 0 0))
                    (local.set $vV (v128.const i32x4 0 0 0 0))
                    (local.set $bV (v128.const i32x4 0 0 0 0))
                    (local.set $nV (v128.const i32x4 0 0 0 0))
                    (local.set $cV (v128.const i32x4 0 0 0 0))
                    (local.set $i (local.get $x))
                    (block $fDone
                      (loop $fLoop
                        (br_if $fDone (i32.ge_s (local.get $i) (local.get $xb)))
                        (if (i32.and (i32.eqz (i32.and (local.get $i) (i32.const 7)))
                                     (i32.le_s (i32.add (local.get $i) (i32.const 8)) (local.get $xb)))
                          (then
                            (local.set $pa (i32.add (local.get $r0) (local.get $i)))
                            (local.set $pb (i32.add (local.get $r1) (local.get $i)))
                            (local.set $pc (i32.add (local.get $r2) (local.get $i)))
                            (local.set $A0 (v128.load8x8_u (i32.sub (local.get $pa) (i32.const 1))))
                            (local.set $A1 (v128.load8x8_u (local.get $pa)))
                            (local.set $A2 (v128.load8x8_u offset=1 (local.get $pa)))
                            (local.set $B0 (v128.load8x8_u (i32.sub (local.get $pb) (i32.const 1))))
                            (local.set $B1 (v128.load8x8_u (local.get $pb)))
                            (local.set $B2 (v128.load8x8_u offset=1 (local.get $pb)))
                            (local.set $C0 (v128.load8x8_u (i32.sub (local.get $pc) (i32.const 1))))
                            (local.set $C1 (v128.load8x8_u (local.get $pc)))
                            (local.set $C2 (v128.load8x8_u offset=1 (local.get $pc)))
                            ;; horizontal grid differences: lane k is phase k
                            (local.set $D (i16x8.abs (i16x8.sub (local.get $B2) (local.get $B1))))
                            (local.set $hV (i16x8.add (local.get $hV)
                              (v128.and (local.get $D) (i16x8.lt_s (local.get $D) (v128.const i16x8 24 24 24 24 24 24 24 24)))))
                            ;; vertical grid differences
                            (local.set $D (i16x8.abs (i16x8.sub (local.get $C1) (local.get $B1))))
                            (local.set $vV (i16x8.add (local.get $vV)
                              (v128.and (local.get $D) (i16x8.lt_s (local.get $D) (v128.const i16x8 24 24 24 24 24 24 24 24)))))
                            (local.set $bV (i16x8.add (local.get $bV) (local.get $B1)))
                            ;; off edges (|b2 − b0| + |c1 − a1| ≤ 48): all-ones lanes
                            (local.set $K (i16x8.le_s
                              (i16x8.add (i16x8.abs (i16x8.sub (local.get $B2) (local.get $B0)))
                                         (i16x8.abs (i16x8.sub (local.get $C1) (local.get $A1))))
                              (v128.const i16x8 48 48 48 48 48 48 48 48)))
                            ;; |a0 + a2 + c0 + c2 + 4 b1 − 2 (a1 + b0 + b2 + c1)|
                            (local.set $D (i16x8.abs
                              (i16x8.sub
                                (i16x8.add (i16x8.add (i16x8.add (local.get $A0) (local.get $A2)) (i16x8.add (local.get $C0) (local.get $C2)))
                                           (i16x8.shl (local.get $B1) (i32.const 2)))
                                (i16x8.shl (i16x8.add (i16x8.add (local.get $A1) (local.get $B0)) (i16x8.add (local.get $B2) (local.get $C1)))
                                           (i32.const 1)))))
                            (local.set $nV (i16x8.add (local.get $nV) (v128.and (local.get $D) (local.get $K))))
                            (local.set $cV (i16x8.sub (local.get $cV) (local.get $K)))
                            (local.set $i (i32.add (local.get $i) (i32.const 8))))
                          (else
                            (local.set $a0 (i32.load8_u (i32.sub (i32.add (local.get $r0) (local.get $i)) (i32.const 1))))
                            (local.set $a1 (i32.load8_u (i32.add (local.get $r0) (local.get $i))))
                            (local.set $a2 (i32.load8_u offset=1 (i32.add (local.get $r0) (local.get $i))))
                            (local.set $b0 (i32.load8_u (i32.sub (i32.add (local.get $r1) (local.get $i)) (i32.const 1))))
                            (local.set $b1 (i32.load8_u (i32.add (local.get $r1) (local.get $i))))
                            (local.set $b2 (i32.load8_u offset=1 (i32.add (local.get $r1) (local.get $i))))
                            (local.set $c0 (i32.load8_u (i32.sub (i32.add (local.get $r2) (local.get $i)) (i32.const 1))))
                            (local.set $c1 (i32.load8_u (i32.add (local.get $r2) (local.get $i))))
                            (local.set $c2 (i32.load8_u offset=1 (i32.add (local.get $r2) (local.get $i))))
                            ;; horizontal grid difference, by x mod 8
                            (local.set $d (i32.sub (local.get $b2) (local.get $b1)))
                            (local.set $m (i32.shr_s (local.get $d) (i32.const 31)))
                            (local.set $d (i32.sub (i32.xor (local.get $d) (local.get $m)) (local.get $m)))
                            (local.set $p (i32.shl (i32.and (local.get $i) (i32.const 7)) (i32.const 2)))
                            (i32.store (local.get $p)
                              (i32.add (i32.load (local.get $p))
                                       (select (local.get $d) (i32.const 0) (i32.lt_u (local.get $d) (i32.const 24)))))
                            ;; vertical grid difference
                            (local.set $d (i32.sub (local.get $c1) (local.get $b1)))
                            (local.set $m (i32.shr_s (local.get $d) (i32.const 31)))
                            (local.set $d (i32.sub (i32.xor (local.get $d) (local.get $m)) (local.get $m)))
                            (local.set $vSum (i32.add (local.get $vSum)
                                                      (select (local.get $d) (i32.const 0) (i32.lt_u (local.get $d) (i32.const 24)))))
                            (local.set $bSum (i32.add (local.get $bSum) (local.get $b1)))
                            ;; edge test: |b2 − b0| + |c1 − a1| ≤ 48
                            (local.set $d (i32.sub (local.get $b2) (local.get $b0)))
                            (local.set $m (i32.shr_s (local.get $d) (i32.const 31)))
                            (local.set $g (i32.sub (i32.xor (local.get $d) (local.get $m)) (local.get $m)))
                            (local.set $d (i32.sub (local.get $c1) (local.get $a1)))
                            (local.set $m (i32.shr_s (local.get $d) (i32.const 31)))
                            (local.set $g (i32.add (local.get $g) (i32.sub (i32.xor (local.get $d) (local.get $m)) (local.get $m))))
                            (local.set $keep (i32.le_u (local.get $g) (i32.const 48)))
                            ;; |a0 + a2 + c0 + c2 + 4 b1 − 2 (a1 + b0 + b2 + c1)|
                            (local.set $d
                              (i32.sub
                                (i32.add (i32.add (i32.add (local.get $a0) (local.get $a2)) (i32.add (local.get $c0) (local.get $c2)))
                                         (i32.shl (local.get $b1) (i32.const 2)))
                                (i32.shl (i32.add (i32.add (local.get $a1) (local.get $b0)) (i32.add (local.get $b2) (local.get $c1))) (i32.const 1))))
                            (local.set $m (i32.shr_s (local.get $d) (i32.const 31)))
                            (local.set $d (i32.sub (i32.xor (local.get $d) (local.get $m)) (local.get $m)))
                            (local.set $nSum (i32.add (local.get $nSum) (select (local.get $d) (i32.const 0) (local.get $keep))))
                            (local.set $nCount (i32.add (local.get $nCount) (local.get $keep)))
                            (local.set $i (i32.add (local.get $i) (i32.const 1)))))
                        (br $fLoop)))
                    ;; The eight-pixel lanes into the segment's sums (each lane held at most 8 steps:
                    ;; no 16-bit lane can overflow).
                    (v128.store (i32.const 32) (local.get $hV))
                    (local.set $vSum (i32.add (local.get $vSum) (call $laneSum (local.get $vV))))
                    (local.set $bSum (i32.add (local.get $bSum) (call $laneSum (local.get $bV))))
                    (local.set $nSum (i32.add (local.get $nSum) (call $laneSum (local.get $nV))))
                    (local.set $nCount (i32.add (local.get $nCount) (call $laneSum (local.get $cV))))

                    ;; The segment's sums into the tile's totals (f64, as the JavaScript pass keeps them).
                    (local.set $p (i32.add (local.get $gh) (i32.shl (local.get $t) (i32.const 6))))
                    (local.set $k (i32.const 0))
                    (block $kDone
                      (loop $kLoop
                        (br_if $kDone (i32.ge_u (local.get $k) (i32.const 8)))
                        (f64.store (local.get $p)
                          (f64.add (f64.load (local.get $p))
                                   (f64.convert_i32_s
                                     (i32.add (i32.load (i32.shl (local.get $k) (i32.const 2)))
                                              (i32.load16_s offset=32 (i32.shl (local.get $k) (i32.const 1)))))))
                        (local.set $p (i32.add (local.get $p) (i32.const 8)))
                        (local.set $k (i32.add (local.get $k) (i32.const 1)))
                        (br $kLoop)))
                    (local.set $p (i32.add (i32.add (local.get $gv) (i32.shl (local.get $t) (i32.const 6)))
                                           (i32.shl (i32.and (local.get $y) (i32.const 7)) (i32.const 3))))
                    (f64.store (local.get $p) (f64.add (f64.load (local.get $p)) (f64.convert_i32_s (local.get $vSum))))
                    (local.set $p (i32.add (local.get $ns) (i32.shl (local.get $t) (i32.const 3))))
                    (f64.store (local.get $p) (f64.add (f64.load (local.get $p)) (f64.convert_i32_s (local.get $nSum))))
                    (local.set $p (i32.add (local.get $nc) (i32.shl (local.get $t) (i32.const 3))))
                    (f64.store (local.get $p) (f64.add (f64.load (local.get $p)) (f64.convert_i32_s (local.get $nCount))))
                    (local.set $p (i32.add (local.get $br) (i32.shl (local.get $t) (i32.const 3))))
                    (f64.store (local.get $p) (f64.add (f64.load (local.get $p)) (f64.convert_i32_s (local.get $bSum))))
                    (if (i32.lt_s (local.get $x) (local.get $xb))
                      (then
                        (local.set $p (i32.add (local.get $seen) (i32.shl (local.get $t) (i32.const 3))))
                        (f64.store (local.get $p)
                          (f64.add (f64.load (local.get $p)) (f64.convert_i32_s (i32.sub (local.get $xb) (local.get $x)))))))
                    (local.set $tc (i32.add (local.get $tc) (i32.const 1)))
                    (br $tcLoop)))))
            (local.set $s (i32.add (local.get $s) (i32.const 1)))
            (br $sLoop)))
        (local.set $ty (i32.add (local.get $ty) (i32.const 1)))
        (br $tyLoop))))

  ;; jpeg-grid.ts peak() for every tile, on the per-tile phase sums at $a (8 f64 per tile): the
  ;; strongest phase other than $ex (the first of equals), and its ratio to the median of the six
  ;; phases left (insertion-sorted as medianOfRest sorts; mean of the middle pair); 1 when that
  ;; median is 0. Phases go to $phase (i32 per tile), ratios to $ratio (f64 per tile); $rest is
  ;; room for 8 f64.
  (func (export "tilePeaks") (param $a i32) (param $n i32) (param $ex i32) (param $phase i32) (param $ratio i32) (param $rest i32)
    (local $t i32) (local $off i32) (local $k i32) (local $p i32) (local $m i32) (local $i i32) (local $j i32)
    (local $v f64) (local $base f64) (local $h i32)
    (local.set $t (i32.const 0))
    (block $tDone (loop $tLoop
      (br_if $tDone (i32.ge_s (local.get $t) (local.get $n)))
      (local.set $off (i32.add (local.get $a) (i32.shl (local.get $t) (i32.const 6))))
      ;; strongest phase other than $ex
      (local.set $p (i32.const -1))
      (local.set $k (i32.const 0))
      (block $kDone (loop $kLoop
        (br_if $kDone (i32.ge_s (local.get $k) (i32.const 8)))
        (if (i32.ne (local.get $k) (local.get $ex))
          (then
            (if (i32.or (i32.lt_s (local.get $p) (i32.const 0))
                        (f64.gt (f64.load (i32.add (local.get $off) (i32.shl (local.get $k) (i32.const 3))))
                                (f64.load (i32.add (local.get $off) (i32.shl (local.get $p) (i32.const 3))))))
              (then (local.set $p (local.get $k))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $kLoop)))
      ;; the others, in phase order
      (local.set $m (i32.const 0))
      (local.set $k (i32.const 0))
      (block $kDone (loop $kLoop
        (br_if $kDone (i32.ge_s (local.get $k) (i32.const 8)))
        (if (i32.and (i32.ne (local.get $k) (local.get $ex)) (i32.ne (local.get $k) (local.get $p)))
          (then
            (f64.store (i32.add (local.get $rest) (i32.shl (local.get $m) (i32.const 3)))
                       (f64.load (i32.add (local.get $off) (i32.shl (local.get $k) (i32.const 3)))))
            (local.set $m (i32.add (local.get $m) (i32.const 1)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $kLoop)))
      ;; insertion sort of rest[0..m)
      (local.set $i (i32.const 1))
      (block $iDone (loop $iLoop
        (br_if $iDone (i32.ge_s (local.get $i) (local.get $m)))
        (local.set $v (f64.load (i32.add (local.get $rest) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $j (i32.sub (local.get $i) (i32.const 1)))
        (block $jDone (loop $jLoop
          (br_if $jDone (i32.lt_s (local.get $j) (i32.const 0)))
          (br_if $jDone (i32.eqz (f64.gt (f64.load (i32.add (local.get $rest) (i32.shl (local.get $j) (i32.const 3)))) (local.get $v))))
          (f64.store (i32.add (local.get $rest) (i32.shl (i32.add (local.get $j) (i32.const 1)) (i32.const 3)))
                     (f64.load (i32.add (local.get $rest) (i32.shl (local.get $j) (i32.const 3)))))
          (local.set $j (i32.sub (local.get $j) (i32.const 1)))
          (br $jLoop)))
        (f64.store (i32.add (local.get $rest) (i32.shl (i32.add (local.get $j) (i32.const 1)) (i32.const 3))) (local.get $v))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $iLoop)))
      ;; median, ratio
      (local.set $h (i32.shr_s (local.get $m) (i32.const 1)))
      (local.set $base
        (if (result f64) (i32.eqz (local.get $m))
          (then (f64.const 0))
          (else
            (if (result f64) (i32.and (local.get $m) (i32.const 1))
              (then (f64.load (i32.add (local.get $rest) (i32.shl (local.get $h) (i32.const 3)))))
              (else (f64.div
                      (f64.add (f64.load (i32.add (local.get $rest) (i32.shl (i32.sub (local.get $h) (i32.const 1)) (i32.const 3))))
                               (f64.load (i32.add (local.get $rest) (i32.shl (local.get $h) (i32.const 3)))))
                      (f64.const 2)))))))
      (i32.store (i32.add (local.get $phase) (i32.shl (local.get $t) (i32.const 2))) (local.get $p))
      (f64.store (i32.add (local.get $ratio) (i32.shl (local.get $t) (i32.const 3)))
        (if (result f64) (f64.gt (local.get $base) (f64.const 0))
          (then (f64.div (f64.load (i32.add (local.get $off) (i32.shl (local.get $p) (i32.const 3)))) (local.get $base)))
          (else (f64.const 1))))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br $tLoop))))

  ;; The image-wide phase totals of jpeg-grid.ts gridStats: out[k] = Σ over tiles t, in order, of
  ;; a[t·8 + k] (f64), k = 0..7.
  (func (export "phaseTotals") (param $a i32) (param $n i32) (param $out i32)
    (local $t i32) (local $k i32) (local $o i32) (local $src i32)
    (local.set $k (i32.const 0))
    (block $kDone (loop $kLoop
      (br_if $kDone (i32.ge_s (local.get $k) (i32.const 8)))
      (f64.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3))) (f64.const 0))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $kLoop)))
    (local.set $t (i32.const 0))
    (block $tDone (loop $tLoop
      (br_if $tDone (i32.ge_s (local.get $t) (local.get $n)))
      (local.set $src (i32.add (local.get $a) (i32.shl (local.get $t) (i32.const 6))))
      (local.set $k (i32.const 0))
      (block $kDone (loop $kLoop
        (br_if $kDone (i32.ge_s (local.get $k) (i32.const 8)))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 3))))
        (f64.store (local.get $o)
          (f64.add (f64.load (local.get $o)) (f64.load (i32.add (local.get $src) (i32.shl (local.get $k) (i32.const 3))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $kLoop)))
      (local.set $t (i32.add (local.get $t) (i32.const 1)))
      (br $tLoop))))
)
