;; kvscope's WebAssembly SIMD kernels (assembled to static/kernels.wasm by
;; `make static/kernels.wasm`, with Debian's wabt).
;;
;; The module works on the Go program's own linear memory: it imports the
;; Memory object the Go module exports (instance.exports.mem), so every
;; pointer argument is a Go address and the memory may grow under it.
;; static/kernels.js wires it in; core/internal/kernels is the Go side, whose
;; Go path (fallback.go) computes bit for bit the same results: each
;; function below states its summation order, and the Go code follows it.
;;
;; All pointers are byte addresses; all counts are elements. Float
;; arithmetic is f32 throughout, each product and sum rounded (WebAssembly
;; has no fused multiply-add outside relaxed SIMD, which is not used).
;; Helpers are written out in the hot loops: V8 does not inline calls
;; between WebAssembly functions by default, and a call per chunk costs
;; more than the chunk.
(module
  (import "go" "mem" (memory 0))

  ;; abi_version is the interface's version; the Go side uses the module
  ;; only when it returns the version the Go code was written for.
  (func (export "abi_version") (result i32) (i32.const 1))

  ;; $dot returns a·b over n floats in the row order: s from +0; per chunk
  ;; of four, s += ((p0 + p1) + p2) + p3 with p_k = a[j+k]·b[j+k]; then the
  ;; last n%4 products added one by one.
  (func $dot (param $a i32) (param $b i32) (param $n i32) (result f32)
    (local $end i32) (local $s f32) (local $v v128)
    (local.set $end (i32.add (local.get $a)
      (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (block $done
      (loop $chunks
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $v (f32x4.mul (v128.load (local.get $a)) (v128.load (local.get $b))))
        (local.set $s (f32.add (local.get $s)
          (f32.add
            (f32.add
              (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
              (f32x4.extract_lane 2 (local.get $v)))
            (f32x4.extract_lane 3 (local.get $v)))))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $b (i32.add (local.get $b) (i32.const 16)))
        (br $chunks)))
    (local.set $end (i32.add (local.get $a)
      (i32.shl (i32.and (local.get $n) (i32.const 3)) (i32.const 2))))
    (block $done
      (loop $tail
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $s (f32.add (local.get $s)
          (f32.mul (f32.load (local.get $a)) (f32.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 4)))
        (local.set $b (i32.add (local.get $b) (i32.const 4)))
        (br $tail)))
    (local.get $s))

  ;; dot_f32 returns $dot(a, b, n).
  (func (export "dot_f32") (param $a i32) (param $b i32) (param $n i32) (result f32)
    (call $dot (local.get $a) (local.get $b) (local.get $n)))

  ;; $dots sets dst[t] = $dot(w + t·stride, x, n) for t < count. Four rows
  ;; at a time, one per lane: per chunk of four columns, the rows' product
  ;; vectors are transposed so that vector k holds product k of each row,
  ;; and ((c0 + c1) + c2) + c3 adds them in the row order; each tail
  ;; column's products are gathered the same way. The last count%4 rows go
  ;; through $dot.
  (func $dots (param $dst i32) (param $x i32) (param $w i32) (param $count i32) (param $n i32) (param $stride i32)
    (local $sb i32) (local $w1 i32) (local $w2 i32) (local $w3 i32)
    (local $o i32) (local $end i32) (local $nb i32) (local $last i32)
    (local $xv v128) (local $acc v128)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local.set $sb (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $end (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2)))
    ;; $last: dst address past the last full group of four.
    (local.set $last (i32.add (local.get $dst)
      (i32.shl (i32.and (local.get $count) (i32.const -4)) (i32.const 2))))
    (block $groups_done
      (loop $groups
        (br_if $groups_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $w1 (i32.add (local.get $w) (local.get $sb)))
        (local.set $w2 (i32.add (local.get $w1) (local.get $sb)))
        (local.set $w3 (i32.add (local.get $w2) (local.get $sb)))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $o (i32.const 0))
        (block $chunks_done
          (loop $chunks
            (br_if $chunks_done (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $xv (v128.load (i32.add (local.get $x) (local.get $o))))
            (local.set $v0 (f32x4.mul (v128.load (i32.add (local.get $w) (local.get $o))) (local.get $xv)))
            (local.set $v1 (f32x4.mul (v128.load (i32.add (local.get $w1) (local.get $o))) (local.get $xv)))
            (local.set $v2 (f32x4.mul (v128.load (i32.add (local.get $w2) (local.get $o))) (local.get $xv)))
            (local.set $v3 (f32x4.mul (v128.load (i32.add (local.get $w3) (local.get $o))) (local.get $xv)))
            ;; t0 = [v0₀ v1₀ v0₁ v1₁], t1 = [v2₀ v3₀ v2₁ v3₁],
            ;; t2 = [v0₂ v1₂ v0₃ v1₃], t3 = [v2₂ v3₂ v2₃ v3₃].
            (local.set $t0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v0) (local.get $v1)))
            (local.set $t1 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $v2) (local.get $v3)))
            (local.set $t2 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v0) (local.get $v1)))
            (local.set $t3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $v2) (local.get $v3)))
            ;; c_k = [v0_k v1_k v2_k v3_k].
            (local.set $acc (f32x4.add (local.get $acc)
              (f32x4.add
                (f32x4.add
                  (f32x4.add
                    (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t0) (local.get $t1))
                    (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t0) (local.get $t1)))
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $t2) (local.get $t3)))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $t2) (local.get $t3)))))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (br $chunks)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $o) (local.get $nb)))
            (local.set $v0 (f32x4.splat (f32.load (i32.add (local.get $w) (local.get $o)))))
            (local.set $v0 (f32x4.replace_lane 1 (local.get $v0) (f32.load (i32.add (local.get $w1) (local.get $o)))))
            (local.set $v0 (f32x4.replace_lane 2 (local.get $v0) (f32.load (i32.add (local.get $w2) (local.get $o)))))
            (local.set $v0 (f32x4.replace_lane 3 (local.get $v0) (f32.load (i32.add (local.get $w3) (local.get $o)))))
            (local.set $acc (f32x4.add (local.get $acc)
              (f32x4.mul (local.get $v0) (v128.load32_splat (i32.add (local.get $x) (local.get $o))))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br $tail)))
        (v128.store (local.get $dst) (local.get $acc))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $w (i32.add (local.get $w3) (local.get $sb)))
        (br $groups)))
    (local.set $last (i32.add (local.get $last)
      (i32.shl (i32.and (local.get $count) (i32.const 3)) (i32.const 2))))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (f32.store (local.get $dst) (call $dot (local.get $w) (local.get $x) (local.get $n)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (local.set $w (i32.add (local.get $w) (local.get $sb)))
        (br $rows))))

  ;; matvec_f32 sets dst[i] = $dot(w + i·n, x, n) for i < rows.
  (func (export "matvec_f32") (param $dst i32) (param $w i32) (param $x i32) (param $rows i32) (param $n i32)
    (call $dots (local.get $dst) (local.get $x) (local.get $w) (local.get $rows) (local.get $n) (local.get $n)))

  ;; scores_f32 sets att[t] = $dot(keys + t·stride, q, n) for t < count:
  ;; one query head against count keys stored stride floats apart.
  (func (export "scores_f32") (param $att i32) (param $q i32) (param $keys i32) (param $count i32) (param $n i32) (param $stride i32)
    (call $dots (local.get $att) (local.get $q) (local.get $keys) (local.get $count) (local.get $n) (local.get $stride)))

  ;; $matvec_q sets dst[i] to row i of a quantized matrix at p times x, n a
  ;; multiple of 32: rows of n/32 blocks of $bb bytes, 34 for Q8_0 (fp16
  ;; scale d, 32 int8 quants) or 18 for Q4_0 (fp16 scale d, 16 bytes whose
  ;; low nibbles are quants 0..15 and high nibbles 16..31, each standing for
  ;; nibble − 8). Per row, s from +0; per block, four lane sums from +0,
  ;; a_l += q[4k+l]·x[4k+l] for k = 0..7 in order, then
  ;; s += d·((a0 + a1) + (a2 + a3)).
  (func $matvec_q (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32) (param $bb i32)
    (local $xe i32) (local $xp i32) (local $last i32) (local $h i32) (local $m i32)
    (local $a v128) (local $lo v128) (local $hi v128) (local $v v128) (local $d f32) (local $s f32)
    (local.set $xe (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $rows) (i32.const 2))))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $s (f32.const 0))
        (local.set $xp (local.get $x))
        (block $blocks_done
          (loop $blocks
            (br_if $blocks_done (i32.ge_u (local.get $xp) (local.get $xe)))
            ;; d: the fp16 scale widened exactly, as Go's f16 does: the
            ;; magnitude bits moved to a float32's place and scaled by
            ;; 2^112 (right for subnormal halves too), infinities and NaNs
            ;; given the all-ones exponent, then the sign.
            (local.set $h (i32.load16_u (local.get $p)))
            (local.set $m (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
            (local.set $d (f32.copysign
              (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                (then (f32.reinterpret_i32 (i32.or (local.get $m) (i32.const 0x7f800000))))
                (else (f32.mul (f32.reinterpret_i32 (local.get $m)) (f32.const 0x1p112))))
              (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))
            ;; lo: quants 0..15, hi: quants 16..31, as signed bytes.
            (if (i32.eq (local.get $bb) (i32.const 34))
              (then
                (local.set $lo (v128.load offset=2 (local.get $p)))
                (local.set $hi (v128.load offset=18 (local.get $p))))
              (else
                (local.set $v (v128.load offset=2 (local.get $p)))
                (local.set $lo (i8x16.sub
                  (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
                  (v128.const i8x16 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8)))
                (local.set $hi (i8x16.sub (i8x16.shr_u (local.get $v) (i32.const 4))
                  (v128.const i8x16 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8 8)))))
            ;; a = ((((((((0 + p0) + p1) + p2) + p3) + p4) + p5) + p6) + p7),
            ;; p_k = quants 4k..4k+3 times x[4k..4k+3].
            (local.set $v (i16x8.extend_low_i8x16_s (local.get $lo)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $v))) (v128.load (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $v))) (v128.load offset=16 (local.get $xp)))))
            (local.set $v (i16x8.extend_high_i8x16_s (local.get $lo)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $v))) (v128.load offset=32 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $v))) (v128.load offset=48 (local.get $xp)))))
            (local.set $v (i16x8.extend_low_i8x16_s (local.get $hi)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $v))) (v128.load offset=64 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $v))) (v128.load offset=80 (local.get $xp)))))
            (local.set $v (i16x8.extend_high_i8x16_s (local.get $hi)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $v))) (v128.load offset=96 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $v))) (v128.load offset=112 (local.get $xp)))))
            ;; v = [a0+a1, ·, a2+a3, ·]
            (local.set $v (f32x4.add (local.get $a)
              (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $a) (local.get $a))))
            (local.set $s (f32.add (local.get $s)
              (f32.mul (local.get $d)
                (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 2 (local.get $v))))))
            (local.set $p (i32.add (local.get $p) (local.get $bb)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 128)))
            (br $blocks)))
        (f32.store (local.get $dst) (local.get $s))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $rows))))

  (func (export "matvec_q8_0") (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32)
    (call $matvec_q (local.get $dst) (local.get $p) (local.get $x) (local.get $rows) (local.get $n) (i32.const 34)))

  (func (export "matvec_q4_0") (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32)
    (call $matvec_q (local.get $dst) (local.get $p) (local.get $x) (local.get $rows) (local.get $n) (i32.const 18)))

  ;; wsum_f32 sets out[i] = Σ_t att[t]·vals[t·stride + i] for i < n, the
  ;; sum taken from +0 in increasing t: sixteen outputs at a time, then
  ;; four, then one (the order per output is the same in each).
  (func (export "wsum_f32") (param $out i32) (param $att i32) (param $vals i32) (param $count i32) (param $n i32) (param $stride i32)
    (local $sb i32) (local $ae i32) (local $ap i32) (local $vp i32) (local $end i32)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $a v128) (local $s f32)
    (local.set $sb (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $ae (i32.add (local.get $att) (i32.shl (local.get $count) (i32.const 2))))
    ;; sixteen outputs at a time
    (local.set $end (i32.add (local.get $out)
      (i32.shl (i32.and (local.get $n) (i32.const -16)) (i32.const 2))))
    (block $w16_done
      (loop $w16
        (br_if $w16_done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $c0 (v128.const i64x2 0 0)) (local.set $c1 (v128.const i64x2 0 0))
        (local.set $c2 (v128.const i64x2 0 0)) (local.set $c3 (v128.const i64x2 0 0))
        (local.set $ap (local.get $att))
        (local.set $vp (local.get $vals))
        (block $t_done
          (loop $t
            (br_if $t_done (i32.ge_u (local.get $ap) (local.get $ae)))
            (local.set $a (v128.load32_splat (local.get $ap)))
            (local.set $c0 (f32x4.add (local.get $c0) (f32x4.mul (local.get $a) (v128.load (local.get $vp)))))
            (local.set $c1 (f32x4.add (local.get $c1) (f32x4.mul (local.get $a) (v128.load offset=16 (local.get $vp)))))
            (local.set $c2 (f32x4.add (local.get $c2) (f32x4.mul (local.get $a) (v128.load offset=32 (local.get $vp)))))
            (local.set $c3 (f32x4.add (local.get $c3) (f32x4.mul (local.get $a) (v128.load offset=48 (local.get $vp)))))
            (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
            (local.set $vp (i32.add (local.get $vp) (local.get $sb)))
            (br $t)))
        (v128.store (local.get $out) (local.get $c0))
        (v128.store offset=16 (local.get $out) (local.get $c1))
        (v128.store offset=32 (local.get $out) (local.get $c2))
        (v128.store offset=48 (local.get $out) (local.get $c3))
        (local.set $out (i32.add (local.get $out) (i32.const 64)))
        (local.set $vals (i32.add (local.get $vals) (i32.const 64)))
        (br $w16)))
    ;; four at a time
    (local.set $end (i32.add (local.get $end)
      (i32.shl (i32.and (local.get $n) (i32.const 12)) (i32.const 2))))
    (block $w4_done
      (loop $w4
        (br_if $w4_done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $c0 (v128.const i64x2 0 0))
        (local.set $ap (local.get $att))
        (local.set $vp (local.get $vals))
        (block $t_done
          (loop $t
            (br_if $t_done (i32.ge_u (local.get $ap) (local.get $ae)))
            (local.set $c0 (f32x4.add (local.get $c0)
              (f32x4.mul (v128.load32_splat (local.get $ap)) (v128.load (local.get $vp)))))
            (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
            (local.set $vp (i32.add (local.get $vp) (local.get $sb)))
            (br $t)))
        (v128.store (local.get $out) (local.get $c0))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $vals (i32.add (local.get $vals) (i32.const 16)))
        (br $w4)))
    ;; one at a time
    (local.set $end (i32.add (local.get $end)
      (i32.shl (i32.and (local.get $n) (i32.const 3)) (i32.const 2))))
    (block $w1_done
      (loop $w1
        (br_if $w1_done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $s (f32.const 0))
        (local.set $ap (local.get $att))
        (local.set $vp (local.get $vals))
        (block $t_done
          (loop $t
            (br_if $t_done (i32.ge_u (local.get $ap) (local.get $ae)))
            (local.set $s (f32.add (local.get $s)
              (f32.mul (f32.load (local.get $ap)) (f32.load (local.get $vp)))))
            (local.set $ap (i32.add (local.get $ap) (i32.const 4)))
            (local.set $vp (i32.add (local.get $vp) (local.get $sb)))
            (br $t)))
        (f32.store (local.get $out) (local.get $s))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $vals (i32.add (local.get $vals) (i32.const 4)))
        (br $w1))))
)
