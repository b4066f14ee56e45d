;; The residual power spectrum of spectrum.ts in WebAssembly: the same float64 operations in the
;; same order (WebAssembly neither fuses nor reorders them), so the power spectrum is bit-identical
;; to the JavaScript one (spectrum.ts spectrumPowerJs; a unit test compares them). Why: a one-shot
;; CLI process computes it once, and V8 ran the JavaScript FFT mostly in its interpreter there.
;;
;; Regenerate spectrum-wasm.ts after editing: node scripts/build-wasm.mjs
;;
;; Memory layout (bytes): the 256×256 window of the plane at 0 (one byte per pixel, row-major),
;; re at 65536, im at 67584, power (129 bins) at 69632, the twiddle factors' cos at 71680 and sin
;; at 73728 (256 f64 each, as spectrum.ts computes them).
(module
  (memory (export "memory") 2)

  ;; One line of the window (start, step in bytes): |first difference| residual, mean removed,
  ;; radix-2 FFT, power added to the 129 bins. spectrum.ts addLinePower.
  (func $line (param $start i32) (param $step i32)
    (local $i i32) (local $j i32) (local $bit i32) (local $len i32) (local $half i32) (local $k i32)
    (local $a i32) (local $b i32) (local $t i32) (local $d i32) (local $c i32)
    (local $mean f64) (local $wr f64) (local $wi f64) (local $xr f64) (local $xi f64) (local $tmp f64)
    ;; residual
    (local.set $i (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (i32.const 256)))
      (local.set $c (i32.load8_u (i32.add (local.get $start)
        (i32.mul (select (i32.add (local.get $i) (i32.const 1)) (local.get $i) (i32.lt_u (local.get $i) (i32.const 255)))
                 (local.get $step)))))
      (local.set $d (i32.sub (local.get $c)
        (i32.load8_u (i32.add (local.get $start) (i32.mul (local.get $i) (local.get $step))))))
      (if (i32.lt_s (local.get $d) (i32.const 0)) (then (local.set $d (i32.sub (i32.const 0) (local.get $d)))))
      (f64.store (i32.add (i32.const 65536) (i32.shl (local.get $i) (i32.const 3))) (f64.convert_i32_s (local.get $d)))
      (f64.store (i32.add (i32.const 67584) (i32.shl (local.get $i) (i32.const 3))) (f64.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    ;; mean, then removed
    (local.set $mean (f64.const 0))
    (local.set $i (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (i32.const 256)))
      (local.set $mean (f64.add (local.get $mean) (f64.load (i32.add (i32.const 65536) (i32.shl (local.get $i) (i32.const 3))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.set $mean (f64.div (local.get $mean) (f64.const 256)))
    (local.set $i (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (i32.const 256)))
      (local.set $a (i32.add (i32.const 65536) (i32.shl (local.get $i) (i32.const 3))))
      (f64.store (local.get $a) (f64.sub (f64.load (local.get $a)) (local.get $mean)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    ;; bit-reversal permutation
    (local.set $j (i32.const 0))
    (local.set $i (i32.const 1))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (i32.const 256)))
      (local.set $bit (i32.const 128))
      (block $bdone (loop $bl
        (br_if $bdone (i32.eqz (i32.and (local.get $j) (local.get $bit))))
        (local.set $j (i32.xor (local.get $j) (local.get $bit)))
        (local.set $bit (i32.shr_s (local.get $bit) (i32.const 1)))
        (br $bl)))
      (local.set $j (i32.xor (local.get $j) (local.get $bit)))
      (if (i32.lt_s (local.get $i) (local.get $j))
        (then
          (local.set $a (i32.shl (local.get $i) (i32.const 3)))
          (local.set $b (i32.shl (local.get $j) (i32.const 3)))
          (local.set $tmp (f64.load offset=65536 (local.get $a)))
          (f64.store offset=65536 (local.get $a) (f64.load offset=65536 (local.get $b)))
          (f64.store offset=65536 (local.get $b) (local.get $tmp))
          (local.set $tmp (f64.load offset=67584 (local.get $a)))
          (f64.store offset=67584 (local.get $a) (f64.load offset=67584 (local.get $b)))
          (f64.store offset=67584 (local.get $b) (local.get $tmp))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    ;; butterflies
    (local.set $len (i32.const 2))
    (block $done (loop $l
      (br_if $done (i32.gt_u (local.get $len) (i32.const 256)))
      (local.set $half (i32.shr_u (local.get $len) (i32.const 1)))
      (local.set $i (i32.const 0))
      (block $idone (loop $il
        (br_if $idone (i32.ge_u (local.get $i) (i32.const 256)))
        (local.set $k (i32.const 0))
        (block $kdone (loop $kl
          (br_if $kdone (i32.ge_u (local.get $k) (local.get $half)))
          (local.set $t (i32.shl (i32.add (i32.sub (local.get $half) (i32.const 1)) (local.get $k)) (i32.const 3)))
          (local.set $wr (f64.load offset=71680 (local.get $t)))
          (local.set $wi (f64.load offset=73728 (local.get $t)))
          (local.set $a (i32.shl (i32.add (local.get $i) (local.get $k)) (i32.const 3)))
          (local.set $b (i32.add (local.get $a) (i32.shl (local.get $half) (i32.const 3))))
          ;; xr = re[b]·wr − im[b]·wi; xi = re[b]·wi + im[b]·wr
          (local.set $xr (f64.sub (f64.mul (f64.load offset=65536 (local.get $b)) (local.get $wr))
                                  (f64.mul (f64.load offset=67584 (local.get $b)) (local.get $wi))))
          (local.set $xi (f64.add (f64.mul (f64.load offset=65536 (local.get $b)) (local.get $wi))
                                  (f64.mul (f64.load offset=67584 (local.get $b)) (local.get $wr))))
          (f64.store offset=65536 (local.get $b) (f64.sub (f64.load offset=65536 (local.get $a)) (local.get $xr)))
          (f64.store offset=67584 (local.get $b) (f64.sub (f64.load offset=67584 (local.get $a)) (local.get $xi)))
          (f64.store offset=65536 (local.get $a) (f64.add (f64.load offset=65536 (local.get $a)) (local.get $xr)))
          (f64.store offset=67584 (local.get $a) (f64.add (f64.load offset=67584 (local.get $a)) (local.get $xi)))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $kl)))
        (local.set $i (i32.add (local.get $i) (local.get $len)))
        (br $il)))
      (local.set $len (i32.shl (local.get $len) (i32.const 1)))
      (br $l)))
    ;; power[k] = power[k] + re[k]·re[k] + im[k]·im[k], k = 0..128
    (local.set $k (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.gt_u (local.get $k) (i32.const 128)))
      (local.set $a (i32.shl (local.get $k) (i32.const 3)))
      (f64.store offset=69632 (local.get $a)
        (f64.add
          (f64.add (f64.load offset=69632 (local.get $a))
                   (f64.mul (f64.load offset=65536 (local.get $a)) (f64.load offset=65536 (local.get $a))))
          (f64.mul (f64.load offset=67584 (local.get $a)) (f64.load offset=67584 (local.get $a)))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $l))))

  ;; Every other row, then every other column, of the window: spectrum.ts spectrumStats's loop.
  (func (export "spectrumPower")
    (local $line i32)
    (local.set $line (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $line) (i32.const 256)))
      (call $line (i32.shl (local.get $line) (i32.const 8)) (i32.const 1))
      (local.set $line (i32.add (local.get $line) (i32.const 2)))
      (br $l)))
    (local.set $line (i32.const 0))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $line) (i32.const 256)))
      (call $line (local.get $line) (i32.const 256))
      (local.set $line (i32.add (local.get $line) (i32.const 2)))
      (br $l))))
)
