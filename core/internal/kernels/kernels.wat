;; kvscope's WebAssembly SIMD kernels (assembled to static/kernels.wasm by
;; `make static/kernels.wasm`, with Debian's wabt).
;;
;; The module works on the Go program's own linear memory: it imports the
;; Memory object the Go module exports (instance.exports.mem), so every
;; pointer argument is a Go address and the memory may grow under it.
;; static/kernels.js wires it in; core/internal/kernels is the Go side, whose
;; fallback (fallback.go) computes bit for bit the same results: each
;; function below states its summation order, and the Go code follows it.
;;
;; All pointers are byte addresses; all counts are elements. Float
;; arithmetic is f32 throughout, each product and sum rounded (WebAssembly
;; has no fused multiply-add outside relaxed SIMD, which is not used).
(module
  (import "go" "mem" (memory 0))

  ;; abi_version is the interface's version; the Go side uses the module
  ;; only when it returns the version the Go code was written for.
  (func (export "abi_version") (result i32) (i32.const 1))

;; $hsum4 reduces lanes s0..s3 to (s0+s2) + (s1+s3).
  (func $hsum4 (param $s v128) (result f32)
    (local $v v128)
    (local.set $v (f32x4.add (local.get $s)
      (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $s) (local.get $s))))
    (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v))))

  ;; $dot returns a·b over n floats. With p_j = a[j]·b[j]: four lane sums
  ;; from +0 over the chunks of 16 in order, s_l += (p_l + p_{4+l}) +
  ;; (p_{8+l} + p_{12+l}) (indices within the chunk), reduced by $hsum4;
  ;; then the last n%16 products added one by one in increasing j.
  (func $dot (param $a i32) (param $b i32) (param $n i32) (result f32)
    (local $acc v128) (local $end i32) (local $r f32)
    (local.set $end (i32.add (local.get $a)
      (i32.shl (i32.and (local.get $n) (i32.const -16)) (i32.const 2))))
    (block $done
      (loop $chunks
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $acc (f32x4.add (local.get $acc)
          (f32x4.add
            (f32x4.add
              (f32x4.mul (v128.load (local.get $a)) (v128.load (local.get $b)))
              (f32x4.mul (v128.load offset=16 (local.get $a)) (v128.load offset=16 (local.get $b))))
            (f32x4.add
              (f32x4.mul (v128.load offset=32 (local.get $a)) (v128.load offset=32 (local.get $b)))
              (f32x4.mul (v128.load offset=48 (local.get $a)) (v128.load offset=48 (local.get $b)))))))
        (local.set $a (i32.add (local.get $a) (i32.const 64)))
        (local.set $b (i32.add (local.get $b) (i32.const 64)))
        (br $chunks)))
    (local.set $r (call $hsum4 (local.get $acc)))
    (local.set $end (i32.add (local.get $a)
      (i32.shl (i32.and (local.get $n) (i32.const 15)) (i32.const 2))))
    (block $done
      (loop $tail
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $r (f32.add (local.get $r)
          (f32.mul (f32.load (local.get $a)) (f32.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 4)))
        (local.set $b (i32.add (local.get $b) (i32.const 4)))
        (br $tail)))
    (local.get $r))

  ;; dot_f32 returns $dot(a, b, n).
  (func (export "dot_f32") (param $a i32) (param $b i32) (param $n i32) (result f32)
    (call $dot (local.get $a) (local.get $b) (local.get $n)))

  ;; $dots sets dst[t] = $dot(rows + t·stride, x, n) for t < count: four
  ;; rows at a time (each x chunk loaded once for the four), the rest one
  ;; by one.
  (func $dots (param $dst i32) (param $x i32) (param $w i32) (param $count i32) (param $n i32) (param $stride i32)
    (local $sb i32) (local $w1 i32) (local $w2 i32) (local $w3 i32)
    (local $o i32) (local $end i32) (local $nb i32) (local $last i32)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $r0 f32) (local $r1 f32) (local $r2 f32) (local $r3 f32) (local $xv f32)
    (local.set $sb (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $end (i32.shl (i32.and (local.get $n) (i32.const -16)) (i32.const 2)))
    ;; $last: dst address past the last full group of four.
    (local.set $last (i32.add (local.get $dst)
      (i32.shl (i32.and (local.get $count) (i32.const -4)) (i32.const 2))))
    (block $groups_done
      (loop $groups
        (br_if $groups_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $w1 (i32.add (local.get $w) (local.get $sb)))
        (local.set $w2 (i32.add (local.get $w1) (local.get $sb)))
        (local.set $w3 (i32.add (local.get $w2) (local.get $sb)))
        (local.set $a0 (v128.const i64x2 0 0)) (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0)) (local.set $a3 (v128.const i64x2 0 0))
        (local.set $o (i32.const 0))
        (block $chunks_done
          (loop $chunks
            (br_if $chunks_done (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $x0 (v128.load (i32.add (local.get $x) (local.get $o))))
            (local.set $x1 (v128.load offset=16 (i32.add (local.get $x) (local.get $o))))
            (local.set $x2 (v128.load offset=32 (i32.add (local.get $x) (local.get $o))))
            (local.set $x3 (v128.load offset=48 (i32.add (local.get $x) (local.get $o))))
            (local.set $a0 (f32x4.add (local.get $a0) (call $chunk (i32.add (local.get $w) (local.get $o))
              (local.get $x0) (local.get $x1) (local.get $x2) (local.get $x3))))
            (local.set $a1 (f32x4.add (local.get $a1) (call $chunk (i32.add (local.get $w1) (local.get $o))
              (local.get $x0) (local.get $x1) (local.get $x2) (local.get $x3))))
            (local.set $a2 (f32x4.add (local.get $a2) (call $chunk (i32.add (local.get $w2) (local.get $o))
              (local.get $x0) (local.get $x1) (local.get $x2) (local.get $x3))))
            (local.set $a3 (f32x4.add (local.get $a3) (call $chunk (i32.add (local.get $w3) (local.get $o))
              (local.get $x0) (local.get $x1) (local.get $x2) (local.get $x3))))
            (local.set $o (i32.add (local.get $o) (i32.const 64)))
            (br $chunks)))
        (local.set $r0 (call $hsum4 (local.get $a0)))
        (local.set $r1 (call $hsum4 (local.get $a1)))
        (local.set $r2 (call $hsum4 (local.get $a2)))
        (local.set $r3 (call $hsum4 (local.get $a3)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $o) (local.get $nb)))
            (local.set $xv (f32.load (i32.add (local.get $x) (local.get $o))))
            (local.set $r0 (f32.add (local.get $r0)
              (f32.mul (f32.load (i32.add (local.get $w) (local.get $o))) (local.get $xv))))
            (local.set $r1 (f32.add (local.get $r1)
              (f32.mul (f32.load (i32.add (local.get $w1) (local.get $o))) (local.get $xv))))
            (local.set $r2 (f32.add (local.get $r2)
              (f32.mul (f32.load (i32.add (local.get $w2) (local.get $o))) (local.get $xv))))
            (local.set $r3 (f32.add (local.get $r3)
              (f32.mul (f32.load (i32.add (local.get $w3) (local.get $o))) (local.get $xv))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br $tail)))
        (f32.store (local.get $dst) (local.get $r0))
        (f32.store offset=4 (local.get $dst) (local.get $r1))
        (f32.store offset=8 (local.get $dst) (local.get $r2))
        (f32.store offset=12 (local.get $dst) (local.get $r3))
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

  ;; $chunk returns one chunk's lane terms (p_l + p_{4+l}) + (p_{8+l} +
  ;; p_{12+l}) for the 16 floats at w against x0..x3.
  (func $chunk (param $w i32) (param $x0 v128) (param $x1 v128) (param $x2 v128) (param $x3 v128) (result v128)
    (f32x4.add
      (f32x4.add
        (f32x4.mul (v128.load (local.get $w)) (local.get $x0))
        (f32x4.mul (v128.load offset=16 (local.get $w)) (local.get $x1)))
      (f32x4.add
        (f32x4.mul (v128.load offset=32 (local.get $w)) (local.get $x2))
        (f32x4.mul (v128.load offset=48 (local.get $w)) (local.get $x3)))))

  ;; matvec_f32 sets dst[i] = $dot(w + i·n, x, n) for i < rows.
  (func (export "matvec_f32") (param $dst i32) (param $w i32) (param $x i32) (param $rows i32) (param $n i32)
    (call $dots (local.get $dst) (local.get $x) (local.get $w) (local.get $rows) (local.get $n) (local.get $n)))

  ;; $matvec_q sets dst[i] to row i of a quantized matrix at p times x, n a
  ;; multiple of 32: rows of n/32 blocks of $bb bytes, 34 for Q8_0 (fp16
  ;; scale d, 32 int8 quants) or 18 for Q4_0 (fp16 scale d, 16 bytes whose
  ;; low nibbles are quants 0..15 and high nibbles 16..31, each standing for
  ;; nibble − 8). Per block, with p_k = q[4k+l]·x[4k+l] for lane l, t_l =
  ;; ((p0+p1)+(p2+p3)) + ((p4+p5)+(p6+p7)); four accumulators a_l += d·t_l
  ;; from +0 over the row's blocks in order, reduced by $hsum4.
  (func $matvec_q (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32) (param $bb i32)
    (local $xe i32) (local $xp i32) (local $last i32) (local $h i32) (local $m i32)
    (local $acc v128) (local $lo v128) (local $hi v128) (local $v v128) (local $d f32)
    (local.set $xe (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $rows) (i32.const 2))))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $acc (v128.const i64x2 0 0))
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
            (local.set $acc (f32x4.add (local.get $acc)
              (f32x4.mul (f32x4.splat (local.get $d))
                (f32x4.add
                  (f32x4.add
                    (call $pair (i16x8.extend_low_i8x16_s (local.get $lo)) (local.get $xp))
                    (call $pair (i16x8.extend_high_i8x16_s (local.get $lo)) (i32.add (local.get $xp) (i32.const 32))))
                  (f32x4.add
                    (call $pair (i16x8.extend_low_i8x16_s (local.get $hi)) (i32.add (local.get $xp) (i32.const 64)))
                    (call $pair (i16x8.extend_high_i8x16_s (local.get $hi)) (i32.add (local.get $xp) (i32.const 96))))))))
            (local.set $p (i32.add (local.get $p) (local.get $bb)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 128)))
            (br $blocks)))
        (f32.store (local.get $dst) (call $hsum4 (local.get $acc)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $rows))))
;; $pair returns p_a + p_b for eight quants q (as i16) against x[0..7]:
  ;; p_a = q[0..3]·x[0..3], p_b = q[4..7]·x[4..7], lane by lane.
  (func $pair (param $q v128) (param $x i32) (result v128)
    (f32x4.add
      (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $q))) (v128.load (local.get $x)))
      (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $q))) (v128.load offset=16 (local.get $x)))))

  (func (export "matvec_q8_0") (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32)
    (call $matvec_q (local.get $dst) (local.get $p) (local.get $x) (local.get $rows) (local.get $n) (i32.const 34)))

  (func (export "matvec_q4_0") (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32)
    (call $matvec_q (local.get $dst) (local.get $p) (local.get $x) (local.get $rows) (local.get $n) (i32.const 18)))

;; scores_f32 sets att[t] = $dot(keys + t·stride, q, n) for t < count:
  ;; one query head against count keys stored stride floats apart.
  (func (export "scores_f32") (param $att i32) (param $q i32) (param $keys i32) (param $count i32) (param $n i32) (param $stride i32)
    (call $dots (local.get $att) (local.get $q) (local.get $keys) (local.get $count) (local.get $n) (local.get $stride)))

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
