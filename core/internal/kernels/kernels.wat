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
  ;; only when it returns the version the Go code was written for. 2: the
  ;; F32 row order of eight lane sums (1 was four products per chunk added
  ;; to one running sum); 3: the Q4_K, Q5_K, Q6_K and Q5_0 products; 4: the
  ;; byte-code gathers dots_u8 and affine_u8; 5: matvec_h16, the F16 and
  ;; BF16 products.
  (func (export "abi_version") (result i32) (i32.const 5))

  ;; $dot returns a·b over n floats in the row order. With p_j = a[j]·b[j]:
  ;; eight lane sums from +0 held in two vectors, lo (lanes 0..3) and hi
  ;; (lanes 4..7); per whole chunk of eight columns, lane l adds p_{8k+l};
  ;; if n mod 8 ≥ 4, lo adds the next four products; then
  ;; s = ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)), which is
  ;; v = lo + hi, u = v + [v2 v3 v0 v1], s = u0 + u1; then the last n%4
  ;; products added to s one by one. The two vectors are independent
  ;; chains, so the loop streams a at the rate of its loads.
  (func $dot (param $a i32) (param $b i32) (param $n i32) (result f32)
    (local $end i32) (local $s f32) (local $lo v128) (local $hi v128)
    (local.set $end (i32.add (local.get $a)
      (i32.shl (i32.and (local.get $n) (i32.const -8)) (i32.const 2))))
    (block $done
      (loop $chunks
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $lo (f32x4.add (local.get $lo)
          (f32x4.mul (v128.load (local.get $a)) (v128.load (local.get $b)))))
        (local.set $hi (f32x4.add (local.get $hi)
          (f32x4.mul (v128.load offset=16 (local.get $a)) (v128.load offset=16 (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (br $chunks)))
    (if (i32.and (local.get $n) (i32.const 4))
      (then
        (local.set $lo (f32x4.add (local.get $lo)
          (f32x4.mul (v128.load (local.get $a)) (v128.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $b (i32.add (local.get $b) (i32.const 16)))))
    (local.set $lo (f32x4.add (local.get $lo) (local.get $hi)))
    (local.set $lo (f32x4.add (local.get $lo)
      (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo) (local.get $lo))))
    (local.set $s (f32.add (f32x4.extract_lane 0 (local.get $lo)) (f32x4.extract_lane 1 (local.get $lo))))
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
  ;; at a time, each with its own lo and hi lane sums and $dot's steps in
  ;; $dot's order, so that each x vector is loaded once per four rows and
  ;; eight independent chains are in flight; the last count%4 rows go
  ;; through $dot. A row's result depends on nothing but the row and x.
  ;; It suits rows that are short (attention keys) or already in cache
  ;; (matmat_f32's); matvec_f32 streams a matrix one row at a time.
  (func $dots (param $dst i32) (param $x i32) (param $w i32) (param $count i32) (param $n i32) (param $stride i32)
    (local $sb i32) (local $w1 i32) (local $w2 i32) (local $w3 i32)
    (local $o i32) (local $end i32) (local $nb i32) (local $last i32)
    (local $xl v128) (local $xh v128)
    (local $l0 v128) (local $h0 v128) (local $l1 v128) (local $h1 v128)
    (local $l2 v128) (local $h2 v128) (local $l3 v128) (local $h3 v128)
    (local $s0 f32) (local $s1 f32) (local $s2 f32) (local $s3 f32) (local $xs f32)
    (local.set $sb (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $end (i32.shl (i32.and (local.get $n) (i32.const -8)) (i32.const 2)))
    ;; $last: dst address past the last full group of four.
    (local.set $last (i32.add (local.get $dst)
      (i32.shl (i32.and (local.get $count) (i32.const -4)) (i32.const 2))))
    (block $groups_done
      (loop $groups
        (br_if $groups_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $w1 (i32.add (local.get $w) (local.get $sb)))
        (local.set $w2 (i32.add (local.get $w1) (local.get $sb)))
        (local.set $w3 (i32.add (local.get $w2) (local.get $sb)))
        (local.set $l0 (v128.const i64x2 0 0)) (local.set $h0 (v128.const i64x2 0 0))
        (local.set $l1 (v128.const i64x2 0 0)) (local.set $h1 (v128.const i64x2 0 0))
        (local.set $l2 (v128.const i64x2 0 0)) (local.set $h2 (v128.const i64x2 0 0))
        (local.set $l3 (v128.const i64x2 0 0)) (local.set $h3 (v128.const i64x2 0 0))
        (local.set $o (i32.const 0))
        (block $chunks_done
          (loop $chunks
            (br_if $chunks_done (i32.ge_u (local.get $o) (local.get $end)))
            (local.set $xl (v128.load (i32.add (local.get $x) (local.get $o))))
            (local.set $xh (v128.load offset=16 (i32.add (local.get $x) (local.get $o))))
            (local.set $l0 (f32x4.add (local.get $l0) (f32x4.mul (v128.load (i32.add (local.get $w) (local.get $o))) (local.get $xl))))
            (local.set $h0 (f32x4.add (local.get $h0) (f32x4.mul (v128.load offset=16 (i32.add (local.get $w) (local.get $o))) (local.get $xh))))
            (local.set $l1 (f32x4.add (local.get $l1) (f32x4.mul (v128.load (i32.add (local.get $w1) (local.get $o))) (local.get $xl))))
            (local.set $h1 (f32x4.add (local.get $h1) (f32x4.mul (v128.load offset=16 (i32.add (local.get $w1) (local.get $o))) (local.get $xh))))
            (local.set $l2 (f32x4.add (local.get $l2) (f32x4.mul (v128.load (i32.add (local.get $w2) (local.get $o))) (local.get $xl))))
            (local.set $h2 (f32x4.add (local.get $h2) (f32x4.mul (v128.load offset=16 (i32.add (local.get $w2) (local.get $o))) (local.get $xh))))
            (local.set $l3 (f32x4.add (local.get $l3) (f32x4.mul (v128.load (i32.add (local.get $w3) (local.get $o))) (local.get $xl))))
            (local.set $h3 (f32x4.add (local.get $h3) (f32x4.mul (v128.load offset=16 (i32.add (local.get $w3) (local.get $o))) (local.get $xh))))
            (local.set $o (i32.add (local.get $o) (i32.const 32)))
            (br $chunks)))
        (if (i32.and (local.get $n) (i32.const 4))
          (then
            (local.set $xl (v128.load (i32.add (local.get $x) (local.get $o))))
            (local.set $l0 (f32x4.add (local.get $l0) (f32x4.mul (v128.load (i32.add (local.get $w) (local.get $o))) (local.get $xl))))
            (local.set $l1 (f32x4.add (local.get $l1) (f32x4.mul (v128.load (i32.add (local.get $w1) (local.get $o))) (local.get $xl))))
            (local.set $l2 (f32x4.add (local.get $l2) (f32x4.mul (v128.load (i32.add (local.get $w2) (local.get $o))) (local.get $xl))))
            (local.set $l3 (f32x4.add (local.get $l3) (f32x4.mul (v128.load (i32.add (local.get $w3) (local.get $o))) (local.get $xl))))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))))
        ;; each row: v = lo + hi, u = v + [v2 v3 v0 v1], s = u0 + u1.
        (local.set $l0 (f32x4.add (local.get $l0) (local.get $h0)))
        (local.set $l1 (f32x4.add (local.get $l1) (local.get $h1)))
        (local.set $l2 (f32x4.add (local.get $l2) (local.get $h2)))
        (local.set $l3 (f32x4.add (local.get $l3) (local.get $h3)))
        (local.set $l0 (f32x4.add (local.get $l0) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $l0) (local.get $l0))))
        (local.set $l1 (f32x4.add (local.get $l1) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $l1) (local.get $l1))))
        (local.set $l2 (f32x4.add (local.get $l2) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $l2) (local.get $l2))))
        (local.set $l3 (f32x4.add (local.get $l3) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $l3) (local.get $l3))))
        (local.set $s0 (f32.add (f32x4.extract_lane 0 (local.get $l0)) (f32x4.extract_lane 1 (local.get $l0))))
        (local.set $s1 (f32.add (f32x4.extract_lane 0 (local.get $l1)) (f32x4.extract_lane 1 (local.get $l1))))
        (local.set $s2 (f32.add (f32x4.extract_lane 0 (local.get $l2)) (f32x4.extract_lane 1 (local.get $l2))))
        (local.set $s3 (f32.add (f32x4.extract_lane 0 (local.get $l3)) (f32x4.extract_lane 1 (local.get $l3))))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $o) (local.get $nb)))
            (local.set $xs (f32.load (i32.add (local.get $x) (local.get $o))))
            (local.set $s0 (f32.add (local.get $s0) (f32.mul (f32.load (i32.add (local.get $w) (local.get $o))) (local.get $xs))))
            (local.set $s1 (f32.add (local.get $s1) (f32.mul (f32.load (i32.add (local.get $w1) (local.get $o))) (local.get $xs))))
            (local.set $s2 (f32.add (local.get $s2) (f32.mul (f32.load (i32.add (local.get $w2) (local.get $o))) (local.get $xs))))
            (local.set $s3 (f32.add (local.get $s3) (f32.mul (f32.load (i32.add (local.get $w3) (local.get $o))) (local.get $xs))))
            (local.set $o (i32.add (local.get $o) (i32.const 4)))
            (br $tail)))
        (f32.store (local.get $dst) (local.get $s0))
        (f32.store offset=4 (local.get $dst) (local.get $s1))
        (f32.store offset=8 (local.get $dst) (local.get $s2))
        (f32.store offset=12 (local.get $dst) (local.get $s3))
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

  ;; matvec_f32 sets dst[i] = $dot(w + i·n, x, n) for i < rows: one row at
  ;; a time, $dot's loop written out, so the matrix is read as one
  ;; sequential stream (row i+1 follows row i). Decoding reads every weight
  ;; once per token from memory, not from cache, and the hardware
  ;; prefetcher keeps one stream fed better than four rows' streams at
  ;; once: on the 49152×576 matrix the four-row groups of $dots ran at half
  ;; this loop's speed (13.4 ms against 6.7 ms, best of five).
  (func (export "matvec_f32") (param $dst i32) (param $w i32) (param $x i32) (param $rows i32) (param $n i32)
    (local $last i32) (local $n8 i32) (local $end i32) (local $xp i32) (local $s f32) (local $lo v128) (local $hi v128)
    (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $rows) (i32.const 2))))
    (local.set $n8 (i32.shl (i32.and (local.get $n) (i32.const -8)) (i32.const 2)))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $lo (v128.const i64x2 0 0))
        (local.set $hi (v128.const i64x2 0 0))
        (local.set $xp (local.get $x))
        (local.set $end (i32.add (local.get $w) (local.get $n8)))
        (block $done
          (loop $chunks
            (br_if $done (i32.ge_u (local.get $w) (local.get $end)))
            (local.set $lo (f32x4.add (local.get $lo)
              (f32x4.mul (v128.load (local.get $w)) (v128.load (local.get $xp)))))
            (local.set $hi (f32x4.add (local.get $hi)
              (f32x4.mul (v128.load offset=16 (local.get $w)) (v128.load offset=16 (local.get $xp)))))
            (local.set $w (i32.add (local.get $w) (i32.const 32)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 32)))
            (br $chunks)))
        (if (i32.and (local.get $n) (i32.const 4))
          (then
            (local.set $lo (f32x4.add (local.get $lo)
              (f32x4.mul (v128.load (local.get $w)) (v128.load (local.get $xp)))))
            (local.set $w (i32.add (local.get $w) (i32.const 16)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 16)))))
        (local.set $lo (f32x4.add (local.get $lo) (local.get $hi)))
        (local.set $lo (f32x4.add (local.get $lo)
          (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo) (local.get $lo))))
        (local.set $s (f32.add (f32x4.extract_lane 0 (local.get $lo)) (f32x4.extract_lane 1 (local.get $lo))))
        (local.set $end (i32.add (local.get $w)
          (i32.shl (i32.and (local.get $n) (i32.const 3)) (i32.const 2))))
        (block $done
          (loop $tail
            (br_if $done (i32.ge_u (local.get $w) (local.get $end)))
            (local.set $s (f32.add (local.get $s)
              (f32.mul (f32.load (local.get $w)) (f32.load (local.get $xp)))))
            (local.set $w (i32.add (local.get $w) (i32.const 4)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 4)))
            (br $tail)))
        (f32.store (local.get $dst) (local.get $s))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $rows))))

  ;; matvec_h16 sets dst[i] = row i of a matrix of 16-bit floats (F16, or
  ;; BF16 when bf ≠ 0; rows of n values, 2n bytes, one after the other)
  ;; times x. Each row is taken in chunks of 256 values: a chunk's values
  ;; are widened exactly and dotted with x in $dot's order, and the chunks'
  ;; sums added to s from +0 in order. Widening: BF16's 16 bits are a
  ;; float32's top half; F16's magnitude bits move to a float32's place and
  ;; are scaled by 2^112 (right for subnormal halves too), infinities and
  ;; NaNs get the all-ones exponent, then the sign bit is set. The group
  ;; loop takes four values at a time into $a, then swaps $a and $b, so
  ;; that lanes 0..3 of each chunk of eight go to one vector and 4..7 to
  ;; the other, as $dot's lo and hi.
  (func (export "matvec_h16") (param $dst i32) (param $w i32) (param $x i32) (param $rows i32) (param $n i32) (param $bf i32)
    (local $last i32) (local $xp i32) (local $c i32) (local $m i32) (local $end i32) (local $h i32) (local $hm i32)
    (local $s f32) (local $cs f32) (local $f f32) (local $u v128) (local $v v128) (local $a v128) (local $b v128) (local $t v128)
    (local $mag v128) (local $inf v128) (local $scale v128) (local $top v128)
    ;; F16's constants, held in registers rather than built in the loop:
    ;; the magnitude mask, the all-ones exponent, 2^112, and the first
    ;; magnitude (shifted) that is an infinity or a NaN.
    (local.set $mag (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff))
    (local.set $inf (v128.const i32x4 0x7f800000 0x7f800000 0x7f800000 0x7f800000))
    (local.set $scale (v128.const f32x4 0x1p112 0x1p112 0x1p112 0x1p112))
    (local.set $top (v128.const i32x4 0x0f800000 0x0f800000 0x0f800000 0x0f800000))
    (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $rows) (i32.const 2))))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $s (f32.const 0))
        (local.set $xp (local.get $x))
        (local.set $c (i32.const 0))
        (block $chunks_done
          (loop $chunk
            (br_if $chunks_done (i32.ge_u (local.get $c) (local.get $n)))
            (local.set $m (i32.sub (local.get $n) (local.get $c)))
            (if (i32.gt_u (local.get $m) (i32.const 256)) (then (local.set $m (i32.const 256))))
            (local.set $a (v128.const i64x2 0 0))
            (local.set $b (v128.const i64x2 0 0))
            (local.set $end (i32.add (local.get $w) (i32.shl (i32.and (local.get $m) (i32.const -4)) (i32.const 1))))
            ;; The group loop written twice, BF16's and F16's widening
            ;; in place: a branch on bf inside it cost F16 a third.
            (if (local.get $bf)
              (then
                (block $groups_done
                  (loop $group
                    (br_if $groups_done (i32.ge_u (local.get $w) (local.get $end)))
                    (local.set $u (i32x4.extend_low_i16x8_u (v128.load64_zero (local.get $w))))
                    (local.set $v (i32x4.shl (local.get $u) (i32.const 16)))
                    (local.set $t (f32x4.add (local.get $a) (f32x4.mul (local.get $v) (v128.load (local.get $xp)))))
                    (local.set $a (local.get $b))
                    (local.set $b (local.get $t))
                    (local.set $w (i32.add (local.get $w) (i32.const 8)))
                    (local.set $xp (i32.add (local.get $xp) (i32.const 16)))
                    (br $group))))
              (else
                (block $groups_done
                  (loop $group
                    (br_if $groups_done (i32.ge_u (local.get $w) (local.get $end)))
                    (local.set $u (i32x4.extend_low_i16x8_u (v128.load64_zero (local.get $w))))
                    (local.set $v (i32x4.shl (v128.and (local.get $u) (local.get $mag)) (i32.const 13)))
                    (local.set $v (v128.or
                      (v128.bitselect
                        (v128.or (local.get $v) (local.get $inf))
                        (f32x4.mul (local.get $v) (local.get $scale))
                        (i32x4.ge_u (local.get $v) (local.get $top)))
                      (i32x4.shl (v128.andnot (local.get $u) (local.get $mag)) (i32.const 16))))
                    (local.set $t (f32x4.add (local.get $a) (f32x4.mul (local.get $v) (v128.load (local.get $xp)))))
                    (local.set $a (local.get $b))
                    (local.set $b (local.get $t))
                    (local.set $w (i32.add (local.get $w) (i32.const 8)))
                    (local.set $xp (i32.add (local.get $xp) (i32.const 16)))
                    (br $group)))))
            (local.set $a (f32x4.add (local.get $a) (local.get $b)))
            (local.set $a (f32x4.add (local.get $a)
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $a) (local.get $a))))
            (local.set $cs (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a))))
            (local.set $end (i32.add (local.get $w) (i32.shl (i32.and (local.get $m) (i32.const 3)) (i32.const 1))))
            (block $tail_done
              (loop $tail
                (br_if $tail_done (i32.ge_u (local.get $w) (local.get $end)))
                (local.set $h (i32.load16_u (local.get $w)))
                (local.set $hm (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
                (local.set $f (if (result f32) (local.get $bf)
                  (then (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16))))
                  (else (f32.copysign
                    (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                      (then (f32.reinterpret_i32 (i32.or (local.get $hm) (i32.const 0x7f800000))))
                      (else (f32.mul (f32.reinterpret_i32 (local.get $hm)) (f32.const 0x1p112))))
                    (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))))
                (local.set $cs (f32.add (local.get $cs) (f32.mul (local.get $f) (f32.load (local.get $xp)))))
                (local.set $w (i32.add (local.get $w) (i32.const 2)))
                (local.set $xp (i32.add (local.get $xp) (i32.const 4)))
                (br $tail)))
            (local.set $s (f32.add (local.get $s) (local.get $cs)))
            (local.set $c (i32.add (local.get $c) (local.get $m)))
            (br $chunk)))
        (f32.store (local.get $dst) (local.get $s))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $row))))

  ;; matmat_f32 sets dst[t·ds + i] = $dot(w + i·n, x + t·n, n) for i < rows
  ;; and t < count: a matrix times count vectors, as a prompt is processed.
  ;; Four rows at a time against every vector (the rows stay in cache while
  ;; the vectors stream), each through $dots, whose results do not depend
  ;; on how rows are grouped.
  (func (export "matmat_f32") (param $dst i32) (param $w i32) (param $x i32) (param $rows i32) (param $n i32) (param $count i32) (param $ds i32)
    (local $nb i32) (local $dsb i32) (local $k i32) (local $t i32) (local $d i32) (local $xp i32)
    (local.set $nb (i32.shl (local.get $n) (i32.const 2)))
    (local.set $dsb (i32.shl (local.get $ds) (i32.const 2)))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.le_s (local.get $rows) (i32.const 0)))
        (local.set $k (select (local.get $rows) (i32.const 4) (i32.lt_s (local.get $rows) (i32.const 4))))
        (local.set $t (i32.const 0))
        (local.set $d (local.get $dst))
        (local.set $xp (local.get $x))
        (block $vecs_done
          (loop $vecs
            (br_if $vecs_done (i32.ge_u (local.get $t) (local.get $count)))
            (call $dots (local.get $d) (local.get $xp) (local.get $w) (local.get $k) (local.get $n) (local.get $n))
            (local.set $d (i32.add (local.get $d) (local.get $dsb)))
            (local.set $xp (i32.add (local.get $xp) (local.get $nb)))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $vecs)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $w (i32.add (local.get $w) (i32.shl (local.get $nb) (i32.const 2))))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 4)))
        (br $rows))))

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

  ;; ---- K-quants (super-blocks of 256 values) ----

  ;; matvec_q4_k sets dst[i] to row i of a Q4_K matrix at p times x, n a
  ;; multiple of 256: rows of n/256 blocks of 144 bytes (fp16 d, fp16 dmin,
  ;; 12 bytes packing eight 6-bit scales sc_j and mins m_j, 128 bytes whose
  ;; run c of 32 holds sub-block 2c in its low nibbles and 2c+1 in its high
  ;; ones; value d·sc_j·q − dmin·m_j). xs[k] = Σ x[32k..32k+32] is the
  ;; caller's (Go computes it once per x). Order per row: four lane sums
  ;; c_l from +0; per block, v_l from +0; per sub-block j = 0..7, a_l from
  ;; +0, a_l += q[4k+l]·x[32j+4k+l] for k = 0..7, then v_l += sc_j·a_l;
  ;; t_l = m_l·xs_l + m_{4+l}·xs_{4+l} (xs of the block); then
  ;; c_l += d·v_l − dmin·t_l. Finally s = (c0 + c1) + (c2 + c3).
  (func (export "matvec_q4_k") (param $dst i32) (param $p i32) (param $x i32) (param $xs i32) (param $rows i32) (param $n i32)
    (local $xe i32) (local $xp i32) (local $sp i32) (local $last i32) (local $h i32) (local $m i32)
    (local $d f32) (local $dmin f32)
    (local $c v128) (local $v v128) (local $a v128) (local $e v128) (local $w v128)
    (local $b0 v128) (local $b1 v128) (local $q0 v128) (local $q1 v128)
    (local $sc0 v128) (local $sc1 v128) (local $mn0 v128) (local $mn1 v128)
    (local.set $xe (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $rows) (i32.const 2))))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $c (v128.const i64x2 0 0))
        (local.set $xp (local.get $x))
        (local.set $sp (local.get $xs))
        (block $blocks_done
          (loop $blocks
            (br_if $blocks_done (i32.ge_u (local.get $xp) (local.get $xe)))
            ;; d and dmin widened as $matvec_q does.
            (local.set $h (i32.load16_u (local.get $p)))
            (local.set $m (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
            (local.set $d (f32.copysign
              (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                (then (f32.reinterpret_i32 (i32.or (local.get $m) (i32.const 0x7f800000))))
                (else (f32.mul (f32.reinterpret_i32 (local.get $m)) (f32.const 0x1p112))))
              (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))
            (local.set $h (i32.load16_u offset=2 (local.get $p)))
            (local.set $m (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
            (local.set $dmin (f32.copysign
              (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                (then (f32.reinterpret_i32 (i32.or (local.get $m) (i32.const 0x7f800000))))
                (else (f32.mul (f32.reinterpret_i32 (local.get $m)) (f32.const 0x1p112))))
              (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))
            ;; The scale bytes as words w0 w1 w2 (bytes 4..15; the fourth
            ;; lane, quant bytes, is masked off). The bytes of
            ;; [w0 & 0x3f3f3f3f, (w2 & 0x0f0f0f0f) | ((w0 >> 2) & 0x30303030),
            ;;  w1 & 0x3f3f3f3f, ((w2 >> 4) & 0x0f0f0f0f) | ((w1 >> 2) & 0x30303030)]
            ;; are sc_0..7 then m_0..7 (ggml's get_scale_min_k4 four at a time).
            (local.set $w (v128.load offset=4 (local.get $p)))
            (local.set $e (v128.or
              (v128.or
                (v128.and (i8x16.shuffle 0 1 2 3 8 9 10 11 4 5 6 7 8 9 10 11 (local.get $w) (local.get $w))
                  (v128.const i32x4 0x3f3f3f3f 0x0f0f0f0f 0x3f3f3f3f 0))
                (v128.and (i32x4.shr_u (i8x16.shuffle 0 1 2 3 8 9 10 11 4 5 6 7 8 9 10 11 (local.get $w) (local.get $w)) (i32.const 4))
                  (v128.const i32x4 0 0 0 0x0f0f0f0f)))
              (v128.and (i32x4.shr_u (i8x16.shuffle 0 1 2 3 0 1 2 3 4 5 6 7 4 5 6 7 (local.get $w) (local.get $w)) (i32.const 2))
                (v128.const i32x4 0 0x30303030 0 0x30303030))))
            (local.set $w (i16x8.extend_low_i8x16_u (local.get $e)))
            (local.set $sc0 (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $w))))
            (local.set $sc1 (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $w))))
            (local.set $w (i16x8.extend_high_i8x16_u (local.get $e)))
            (local.set $mn0 (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $w))))
            (local.set $mn1 (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $w))))
            (local.set $v (v128.const i64x2 0 0))
            ;; run 0: bytes 16+32·0.., sub-blocks 0 (low nibbles) and 1 (high)
            (local.set $b0 (v128.load offset=16 (local.get $p)))
            (local.set $b1 (v128.load offset=32 (local.get $p)))
            (local.set $q0 (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $q1 (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=0 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=16 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=32 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=48 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=64 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=80 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=96 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=112 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            (local.set $q0 (i8x16.shr_u (local.get $b0) (i32.const 4)))
            (local.set $q1 (i8x16.shr_u (local.get $b1) (i32.const 4)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=128 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=144 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=160 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=176 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=192 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=208 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=224 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=240 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; run 1: bytes 16+32·1.., sub-blocks 2 (low nibbles) and 3 (high)
            (local.set $b0 (v128.load offset=48 (local.get $p)))
            (local.set $b1 (v128.load offset=64 (local.get $p)))
            (local.set $q0 (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $q1 (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=256 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=272 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=288 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=304 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=320 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=336 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=352 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=368 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            (local.set $q0 (i8x16.shr_u (local.get $b0) (i32.const 4)))
            (local.set $q1 (i8x16.shr_u (local.get $b1) (i32.const 4)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=384 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=400 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=416 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=432 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=448 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=464 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=480 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=496 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; run 2: bytes 16+32·2.., sub-blocks 4 (low nibbles) and 5 (high)
            (local.set $b0 (v128.load offset=80 (local.get $p)))
            (local.set $b1 (v128.load offset=96 (local.get $p)))
            (local.set $q0 (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $q1 (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=512 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=528 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=544 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=560 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=576 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=592 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=608 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=624 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            (local.set $q0 (i8x16.shr_u (local.get $b0) (i32.const 4)))
            (local.set $q1 (i8x16.shr_u (local.get $b1) (i32.const 4)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=640 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=656 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=672 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=688 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=704 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=720 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=736 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=752 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; run 3: bytes 16+32·3.., sub-blocks 6 (low nibbles) and 7 (high)
            (local.set $b0 (v128.load offset=112 (local.get $p)))
            (local.set $b1 (v128.load offset=128 (local.get $p)))
            (local.set $q0 (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $q1 (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=768 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=784 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=800 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=816 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=832 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=848 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=864 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=880 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            (local.set $q0 (i8x16.shr_u (local.get $b0) (i32.const 4)))
            (local.set $q1 (i8x16.shr_u (local.get $b1) (i32.const 4)))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=896 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=912 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=928 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=944 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=960 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=976 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=992 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=1008 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc1) (local.get $sc1)) (local.get $a))))

            (local.set $c (f32x4.add (local.get $c)
              (f32x4.sub
                (f32x4.mul (f32x4.splat (local.get $d)) (local.get $v))
                (f32x4.mul (f32x4.splat (local.get $dmin))
                  (f32x4.add
                    (f32x4.mul (local.get $mn0) (v128.load (local.get $sp)))
                    (f32x4.mul (local.get $mn1) (v128.load offset=16 (local.get $sp))))))))
            (local.set $p (i32.add (local.get $p) (i32.const 144)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 1024)))
            (local.set $sp (i32.add (local.get $sp) (i32.const 32)))
            (br $blocks)))
        ;; s = (c0 + c1) + (c2 + c3)
        (local.set $c (f32x4.add (local.get $c)
          (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $c) (local.get $c))))
        (f32.store (local.get $dst)
          (f32.add (f32x4.extract_lane 0 (local.get $c)) (f32x4.extract_lane 2 (local.get $c))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $rows))))

  ;; matvec_q6_k sets dst[i] to row i of a Q6_K matrix at p times x, n a
  ;; multiple of 256: rows of n/256 blocks of 210 bytes (ql[128], qh[64],
  ;; 16 int8 scales, fp16 d at 208; value d·sc_g·q, q in −32..31, with
  ;; sixteen sub-blocks g of 16 values, decoded as ggml's
  ;; dequantize_row_q6_K). Order per row: four lane sums c_l from +0; per
  ;; block, v_l from +0; per sub-block g = 0..15, a_l from +0,
  ;; a_l += q[4k+l]·x[16g+4k+l] for k = 0..3, then v_l += sc_g·a_l; then
  ;; c_l += d·v_l. Finally s = (c0 + c1) + (c2 + c3).
  (func (export "matvec_q6_k") (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32)
    (local $xe i32) (local $xp i32) (local $last i32) (local $h i32) (local $m i32) (local $d f32)
    (local $c v128) (local $v v128) (local $a v128) (local $e v128) (local $q0 v128)
    (local $sc0 v128) (local $sc1 v128)
    (local $l0 v128) (local $l1 v128) (local $l2 v128) (local $l3 v128) (local $h0 v128) (local $h1 v128)
    (local.set $xe (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $rows) (i32.const 2))))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $c (v128.const i64x2 0 0))
        (local.set $xp (local.get $x))
        (block $blocks_done
          (loop $blocks
            (br_if $blocks_done (i32.ge_u (local.get $xp) (local.get $xe)))
            (local.set $h (i32.load16_u offset=208 (local.get $p)))
            (local.set $m (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
            (local.set $d (f32.copysign
              (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                (then (f32.reinterpret_i32 (i32.or (local.get $m) (i32.const 0x7f800000))))
                (else (f32.mul (f32.reinterpret_i32 (local.get $m)) (f32.const 0x1p112))))
              (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))
            (local.set $v (v128.const i64x2 0 0))
            ;; Sub-block g of half n: the low (g < 4) or high nibbles of
            ;; ql[64n + 16(g%4)..], with two high bits from qh[32n + 16(g%2)..]
            ;; (bits 2⌊g/2⌋ and 2⌊g/2⌋+1), minus 32; scale 8n + g.
            ;; half 0: ql at 0, qh at 128, scales at 192
            (local.set $e (v128.load8x8_s offset=192 (local.get $p)))
            (local.set $sc0 (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))))
            (local.set $sc1 (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))))
            (local.set $l0 (v128.load offset=0 (local.get $p)))
            (local.set $l1 (v128.load offset=16 (local.get $p)))
            (local.set $l2 (v128.load offset=32 (local.get $p)))
            (local.set $l3 (v128.load offset=48 (local.get $p)))
            (local.set $h0 (v128.load offset=128 (local.get $p)))
            (local.set $h1 (v128.load offset=144 (local.get $p)))
            ;; values 0..15 of the half, scale 0
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 4)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=0 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=16 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=32 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=48 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 16..31 of the half, scale 1
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 4)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=64 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=80 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=96 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=112 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 32..47 of the half, scale 2
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l2) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=128 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=144 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=160 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=176 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 48..63 of the half, scale 3
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l3) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=192 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=208 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=224 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=240 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 64..79 of the half, scale 4
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l0) (i32.const 4))
              (v128.and (local.get $h0) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=256 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=272 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=288 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=304 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; values 80..95 of the half, scale 5
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l1) (i32.const 4))
              (v128.and (local.get $h1) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=320 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=336 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=352 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=368 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; values 96..111 of the half, scale 6
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l2) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h0) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=384 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=400 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=416 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=432 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; values 112..127 of the half, scale 7
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l3) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h1) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=448 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=464 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=480 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=496 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; half 1: ql at 64, qh at 160, scales at 200
            (local.set $e (v128.load8x8_s offset=200 (local.get $p)))
            (local.set $sc0 (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))))
            (local.set $sc1 (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))))
            (local.set $l0 (v128.load offset=64 (local.get $p)))
            (local.set $l1 (v128.load offset=80 (local.get $p)))
            (local.set $l2 (v128.load offset=96 (local.get $p)))
            (local.set $l3 (v128.load offset=112 (local.get $p)))
            (local.set $h0 (v128.load offset=160 (local.get $p)))
            (local.set $h1 (v128.load offset=176 (local.get $p)))
            ;; values 0..15 of the half, scale 0
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 4)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=512 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=528 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=544 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=560 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 16..31 of the half, scale 1
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 4)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=576 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=592 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=608 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=624 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 32..47 of the half, scale 2
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l2) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=640 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=656 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=672 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=688 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 48..63 of the half, scale 3
            (local.set $q0 (i8x16.sub (v128.or (v128.and (local.get $l3) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=704 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=720 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=736 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=752 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; values 64..79 of the half, scale 4
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l0) (i32.const 4))
              (v128.and (local.get $h0) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=768 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=784 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=800 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=816 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; values 80..95 of the half, scale 5
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l1) (i32.const 4))
              (v128.and (local.get $h1) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=832 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=848 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=864 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=880 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; values 96..111 of the half, scale 6
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l2) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h0) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=896 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=912 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=928 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=944 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; values 112..127 of the half, scale 7
            (local.set $q0 (i8x16.sub (v128.or (i8x16.shr_u (local.get $l3) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h1) (i32.const 2)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48))) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))
            (local.set $e (i16x8.extend_low_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=960 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=976 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_s (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $e))) (v128.load offset=992 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $e))) (v128.load offset=1008 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc1) (local.get $sc1)) (local.get $a))))

            (local.set $c (f32x4.add (local.get $c) (f32x4.mul (f32x4.splat (local.get $d)) (local.get $v))))
            (local.set $p (i32.add (local.get $p) (i32.const 210)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 1024)))
            (br $blocks)))
        (local.set $c (f32x4.add (local.get $c)
          (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $c) (local.get $c))))
        (f32.store (local.get $dst)
          (f32.add (f32x4.extract_lane 0 (local.get $c)) (f32x4.extract_lane 2 (local.get $c))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $rows))))

  ;; ---- Q5_0 ----

  ;; matvec_q5_0 is $matvec_q over Q5_0 blocks of 22 bytes (fp16 d, a
  ;; little-endian 32-bit word qh, 16 bytes whose low nibbles are quants
  ;; 0..15 and high nibbles 16..31; quant j's fifth bit is bit j of qh; the
  ;; value d·(q − 16)), in $matvec_q's order: per row, s from +0; per
  ;; block, four lane sums from +0, a_l += q[4k+l]·x[4k+l] for k = 0..7,
  ;; then s += d·((a0 + a1) + (a2 + a3)).
  (func (export "matvec_q5_0") (param $dst i32) (param $p i32) (param $x i32) (param $rows i32) (param $n i32)
    (local $xe i32) (local $xp i32) (local $last i32) (local $h i32) (local $m i32)
    (local $a v128) (local $lo v128) (local $hi v128) (local $v v128) (local $qh v128) (local $d f32) (local $s f32)
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
            (local.set $h (i32.load16_u (local.get $p)))
            (local.set $m (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
            (local.set $d (f32.copysign
              (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                (then (f32.reinterpret_i32 (i32.or (local.get $m) (i32.const 0x7f800000))))
                (else (f32.mul (f32.reinterpret_i32 (local.get $m)) (f32.const 0x1p112))))
              (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))
            ;; qh's bits as bytes 16 or 0: byte j of lo (hi) takes byte j/8
            ;; (2 + j/8) of qh, keeps bit j%8 and compares.
            (local.set $qh (v128.load32_splat offset=2 (local.get $p)))
            (local.set $v (v128.load offset=6 (local.get $p)))
            (local.set $lo (i8x16.sub
              (v128.or
                (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
                (v128.and
                  (i8x16.eq
                    (v128.and (i8x16.shuffle 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1 (local.get $qh) (local.get $qh))
                      (v128.const i8x16 1 2 4 8 16 32 64 128 1 2 4 8 16 32 64 128))
                    (v128.const i8x16 1 2 4 8 16 32 64 128 1 2 4 8 16 32 64 128))
                  (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16)))
              (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16)))
            (local.set $hi (i8x16.sub
              (v128.or
                (i8x16.shr_u (local.get $v) (i32.const 4))
                (v128.and
                  (i8x16.eq
                    (v128.and (i8x16.shuffle 2 2 2 2 2 2 2 2 3 3 3 3 3 3 3 3 (local.get $qh) (local.get $qh))
                      (v128.const i8x16 1 2 4 8 16 32 64 128 1 2 4 8 16 32 64 128))
                    (v128.const i8x16 1 2 4 8 16 32 64 128 1 2 4 8 16 32 64 128))
                  (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16)))
              (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16)))
            (local.set $v (i16x8.extend_low_i8x16_s (local.get $lo)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $v))) (v128.load offset=0 (local.get $xp)))))
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

            (local.set $v (f32x4.add (local.get $a)
              (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $a) (local.get $a))))
            (local.set $s (f32.add (local.get $s)
              (f32.mul (local.get $d)
                (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 2 (local.get $v))))))
            (local.set $p (i32.add (local.get $p) (i32.const 22)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 128)))
            (br $blocks)))
        (f32.store (local.get $dst) (local.get $s))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $rows))))

  ;; matvec_q5_k is matvec_q4_k over Q5_K blocks of 176 bytes (d, dmin and
  ;; the 12 scale bytes as Q4_K's, then qh[32], then 128 bytes of nibbles
  ;; as Q4_K's; value l of sub-block j has fifth bit j of qh[l], so
  ;; q = nibble + 16·bit), in matvec_q4_k's order.
  (func (export "matvec_q5_k") (param $dst i32) (param $p i32) (param $x i32) (param $xs i32) (param $rows i32) (param $n i32)
    (local $xe i32) (local $xp i32) (local $sp i32) (local $last i32) (local $h i32) (local $m i32)
    (local $d f32) (local $dmin f32)
    (local $c v128) (local $v v128) (local $a v128) (local $e v128) (local $w v128)
    (local $h0 v128) (local $h1 v128) (local $b0 v128) (local $b1 v128) (local $q0 v128) (local $q1 v128)
    (local $sc0 v128) (local $sc1 v128) (local $mn0 v128) (local $mn1 v128)
    (local.set $xe (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $last (i32.add (local.get $dst) (i32.shl (local.get $rows) (i32.const 2))))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $last)))
        (local.set $c (v128.const i64x2 0 0))
        (local.set $xp (local.get $x))
        (local.set $sp (local.get $xs))
        (block $blocks_done
          (loop $blocks
            (br_if $blocks_done (i32.ge_u (local.get $xp) (local.get $xe)))
            ;; d and dmin widened as $matvec_q does.
            (local.set $h (i32.load16_u (local.get $p)))
            (local.set $m (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
            (local.set $d (f32.copysign
              (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                (then (f32.reinterpret_i32 (i32.or (local.get $m) (i32.const 0x7f800000))))
                (else (f32.mul (f32.reinterpret_i32 (local.get $m)) (f32.const 0x1p112))))
              (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))
            (local.set $h (i32.load16_u offset=2 (local.get $p)))
            (local.set $m (i32.shl (i32.and (local.get $h) (i32.const 0x7fff)) (i32.const 13)))
            (local.set $dmin (f32.copysign
              (if (result f32) (i32.eq (i32.and (local.get $h) (i32.const 0x7c00)) (i32.const 0x7c00))
                (then (f32.reinterpret_i32 (i32.or (local.get $m) (i32.const 0x7f800000))))
                (else (f32.mul (f32.reinterpret_i32 (local.get $m)) (f32.const 0x1p112))))
              (f32.reinterpret_i32 (i32.shl (local.get $h) (i32.const 16)))))
            ;; The scale bytes as words w0 w1 w2 (bytes 4..15; the fourth
            ;; lane, quant bytes, is masked off). The bytes of
            ;; [w0 & 0x3f3f3f3f, (w2 & 0x0f0f0f0f) | ((w0 >> 2) & 0x30303030),
            ;;  w1 & 0x3f3f3f3f, ((w2 >> 4) & 0x0f0f0f0f) | ((w1 >> 2) & 0x30303030)]
            ;; are sc_0..7 then m_0..7 (ggml's get_scale_min_k4 four at a time).
            (local.set $w (v128.load offset=4 (local.get $p)))
            (local.set $e (v128.or
              (v128.or
                (v128.and (i8x16.shuffle 0 1 2 3 8 9 10 11 4 5 6 7 8 9 10 11 (local.get $w) (local.get $w))
                  (v128.const i32x4 0x3f3f3f3f 0x0f0f0f0f 0x3f3f3f3f 0))
                (v128.and (i32x4.shr_u (i8x16.shuffle 0 1 2 3 8 9 10 11 4 5 6 7 8 9 10 11 (local.get $w) (local.get $w)) (i32.const 4))
                  (v128.const i32x4 0 0 0 0x0f0f0f0f)))
              (v128.and (i32x4.shr_u (i8x16.shuffle 0 1 2 3 0 1 2 3 4 5 6 7 4 5 6 7 (local.get $w) (local.get $w)) (i32.const 2))
                (v128.const i32x4 0 0x30303030 0 0x30303030))))
            (local.set $w (i16x8.extend_low_i8x16_u (local.get $e)))
            (local.set $sc0 (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $w))))
            (local.set $sc1 (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $w))))
            (local.set $w (i16x8.extend_high_i8x16_u (local.get $e)))
            (local.set $mn0 (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $w))))
            (local.set $mn1 (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $w))))
            (local.set $v (v128.const i64x2 0 0))
            (local.set $h0 (v128.load offset=16 (local.get $p)))
            (local.set $h1 (v128.load offset=32 (local.get $p)))
            ;; run 0: bytes 48+32·0.., sub-blocks 0 (low nibbles, qh bit 0) and 1 (high, bit 1)
            (local.set $b0 (v128.load offset=48 (local.get $p)))
            (local.set $b1 (v128.load offset=64 (local.get $p)))
            (local.set $q0 (v128.or (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 4)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 4)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=0 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=16 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=32 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=48 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=64 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=80 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=96 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=112 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            (local.set $q0 (v128.or (i8x16.shr_u (local.get $b0) (i32.const 4))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 3)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (i8x16.shr_u (local.get $b1) (i32.const 4))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 3)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=128 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=144 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=160 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=176 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=192 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=208 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=224 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=240 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; run 1: bytes 48+32·1.., sub-blocks 2 (low nibbles, qh bit 2) and 3 (high, bit 3)
            (local.set $b0 (v128.load offset=80 (local.get $p)))
            (local.set $b1 (v128.load offset=96 (local.get $p)))
            (local.set $q0 (v128.or (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 2)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 2)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=256 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=272 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=288 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=304 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=320 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=336 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=352 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=368 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            (local.set $q0 (v128.or (i8x16.shr_u (local.get $b0) (i32.const 4))
              (v128.and (i8x16.shl (local.get $h0) (i32.const 1)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (i8x16.shr_u (local.get $b1) (i32.const 4))
              (v128.and (i8x16.shl (local.get $h1) (i32.const 1)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=384 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=400 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=416 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=432 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=448 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=464 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=480 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=496 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc0) (local.get $sc0)) (local.get $a))))
            ;; run 2: bytes 48+32·2.., sub-blocks 4 (low nibbles, qh bit 4) and 5 (high, bit 5)
            (local.set $b0 (v128.load offset=112 (local.get $p)))
            (local.set $b1 (v128.load offset=128 (local.get $p)))
            (local.set $q0 (v128.or (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (local.get $h0) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (local.get $h1) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=512 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=528 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=544 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=560 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=576 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=592 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=608 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=624 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            (local.set $q0 (v128.or (i8x16.shr_u (local.get $b0) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h0) (i32.const 1)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (i8x16.shr_u (local.get $b1) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h1) (i32.const 1)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=640 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=656 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=672 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=688 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=704 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=720 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=736 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=752 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 4 5 6 7 4 5 6 7 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            ;; run 3: bytes 48+32·3.., sub-blocks 6 (low nibbles, qh bit 6) and 7 (high, bit 7)
            (local.set $b0 (v128.load offset=144 (local.get $p)))
            (local.set $b1 (v128.load offset=160 (local.get $p)))
            (local.set $q0 (v128.or (v128.and (local.get $b0) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shr_u (local.get $h0) (i32.const 2)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (v128.and (local.get $b1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
              (v128.and (i8x16.shr_u (local.get $h1) (i32.const 2)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=768 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=784 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=800 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=816 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=832 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=848 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=864 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=880 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 8 9 10 11 8 9 10 11 8 9 10 11 8 9 10 11 (local.get $sc1) (local.get $sc1)) (local.get $a))))
            (local.set $q0 (v128.or (i8x16.shr_u (local.get $b0) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h0) (i32.const 3)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $q1 (v128.or (i8x16.shr_u (local.get $b1) (i32.const 4))
              (v128.and (i8x16.shr_u (local.get $h1) (i32.const 3)) (v128.const i8x16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (v128.const i64x2 0 0)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=896 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=912 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q0)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=928 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=944 (local.get $xp)))))
            (local.set $e (i16x8.extend_low_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=960 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=976 (local.get $xp)))))
            (local.set $e (i16x8.extend_high_i8x16_u (local.get $q1)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $e))) (v128.load offset=992 (local.get $xp)))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $e))) (v128.load offset=1008 (local.get $xp)))))
            (local.set $v (f32x4.add (local.get $v) (f32x4.mul (i8x16.shuffle 12 13 14 15 12 13 14 15 12 13 14 15 12 13 14 15 (local.get $sc1) (local.get $sc1)) (local.get $a))))

            (local.set $c (f32x4.add (local.get $c)
              (f32x4.sub
                (f32x4.mul (f32x4.splat (local.get $d)) (local.get $v))
                (f32x4.mul (f32x4.splat (local.get $dmin))
                  (f32x4.add
                    (f32x4.mul (local.get $mn0) (v128.load (local.get $sp)))
                    (f32x4.mul (local.get $mn1) (v128.load offset=16 (local.get $sp))))))))
            (local.set $p (i32.add (local.get $p) (i32.const 176)))
            (local.set $xp (i32.add (local.get $xp) (i32.const 1024)))
            (local.set $sp (i32.add (local.get $sp) (i32.const 32)))
            (br $blocks)))
        ;; s = (c0 + c1) + (c2 + c3)
        (local.set $c (f32x4.add (local.get $c)
          (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $c) (local.get $c))))
        (f32.store (local.get $dst)
          (f32.add (f32x4.extract_lane 0 (local.get $c)) (f32x4.extract_lane 2 (local.get $c))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (br $rows))))

  ;; ---- Byte codes (core/store's 8-bit tokens) ----

  ;; dots_u8 sets dst[i] = Σ_j q[j]·codes[rows[i]·n + j] for i < count,
  ;; rows holding count int64 row numbers (Go ints). Order per row: four
  ;; lane sums a_l from +0, a_l += q[j]·c[j] for j ≡ l (mod 4) over the
  ;; first n − n%4 columns in increasing j; then the last n%4 products
  ;; added to a0 one by one; s = (a0 + a1) + (a2 + a3).
  (func (export "dots_u8") (param $dst i32) (param $q i32) (param $codes i32) (param $rows i32) (param $count i32) (param $n i32)
    (local $de i32) (local $r i32) (local $j i32) (local $n4 i32) (local $acc v128) (local $a0 f32)
    (local.set $n4 (i32.and (local.get $n) (i32.const -4)))
    (local.set $de (i32.add (local.get $dst) (i32.shl (local.get $count) (i32.const 2))))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.ge_u (local.get $dst) (local.get $de)))
        (local.set $r (i32.add (local.get $codes)
          (i32.mul (i32.wrap_i64 (i64.load (local.get $rows))) (local.get $n))))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $j (i32.const 0))
        (block $chunks_done
          (loop $chunk
            (br_if $chunks_done (i32.ge_u (local.get $j) (local.get $n4)))
            (local.set $acc (f32x4.add (local.get $acc)
              (f32x4.mul
                (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2))))
                (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (i16x8.extend_low_i8x16_u
                  (v128.load32_zero (i32.add (local.get $r) (local.get $j)))))))))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $chunk)))
        (local.set $a0 (f32x4.extract_lane 0 (local.get $acc)))
        (block $tail_done
          (loop $tail
            (br_if $tail_done (i32.ge_u (local.get $j) (local.get $n)))
            (local.set $a0 (f32.add (local.get $a0)
              (f32.mul (f32.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 2))))
                (f32.convert_i32_u (i32.load8_u (i32.add (local.get $r) (local.get $j)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $tail)))
        (f32.store (local.get $dst)
          (f32.add
            (f32.add (local.get $a0) (f32x4.extract_lane 1 (local.get $acc)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (local.set $rows (i32.add (local.get $rows) (i32.const 8)))
        (br $row))))

  ;; affine_u8 adds, for i = 0..count−1 in turn, a[i]·c + b[i] to every
  ;; dst[j], c = codes[rows[i]·n + j]: dst[j] = dst[j] + ((a[i]·c) + b[i]),
  ;; rounded at each step. Sixteen columns at a time held in four vectors,
  ;; then four, then one (the order per column is the same in each).
  (func (export "affine_u8") (param $dst i32) (param $a i32) (param $b i32) (param $codes i32) (param $rows i32) (param $count i32) (param $n i32)
    (local $col i32) (local $end i32) (local $i i32) (local $r i32) (local $av v128) (local $bv v128) (local $c v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $o f32) (local $w v128)
    ;; sixteen columns at a time
    (local.set $end (i32.and (local.get $n) (i32.const -16)))
    (block $w16_done
      (loop $w16
        (br_if $w16_done (i32.ge_u (local.get $col) (local.get $end)))
        (local.set $c0 (v128.load (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2)))))
        (local.set $c1 (v128.load offset=16 (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2)))))
        (local.set $c2 (v128.load offset=32 (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2)))))
        (local.set $c3 (v128.load offset=48 (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2)))))
        (local.set $i (i32.const 0))
        (block $t_done
          (loop $t
            (br_if $t_done (i32.ge_u (local.get $i) (local.get $count)))
            (local.set $av (v128.load32_splat (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $bv (v128.load32_splat (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $r (i32.add (i32.add (local.get $codes) (local.get $col))
              (i32.mul (i32.wrap_i64 (i64.load (i32.add (local.get $rows) (i32.shl (local.get $i) (i32.const 3))))) (local.get $n))))
            (local.set $c (v128.load (local.get $r)))
            (local.set $w (i16x8.extend_low_i8x16_u (local.get $c)))
            (local.set $c0 (f32x4.add (local.get $c0) (f32x4.add
              (f32x4.mul (local.get $av) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $w))))
              (local.get $bv))))
            (local.set $c1 (f32x4.add (local.get $c1) (f32x4.add
              (f32x4.mul (local.get $av) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $w))))
              (local.get $bv))))
            (local.set $w (i16x8.extend_high_i8x16_u (local.get $c)))
            (local.set $c2 (f32x4.add (local.get $c2) (f32x4.add
              (f32x4.mul (local.get $av) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $w))))
              (local.get $bv))))
            (local.set $c3 (f32x4.add (local.get $c3) (f32x4.add
              (f32x4.mul (local.get $av) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $w))))
              (local.get $bv))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $t)))
        (v128.store (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2))) (local.get $c0))
        (v128.store offset=16 (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2))) (local.get $c1))
        (v128.store offset=32 (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2))) (local.get $c2))
        (v128.store offset=48 (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2))) (local.get $c3))
        (local.set $col (i32.add (local.get $col) (i32.const 16)))
        (br $w16)))
    ;; four at a time
    (local.set $end (i32.and (local.get $n) (i32.const -4)))
    (block $w4_done
      (loop $w4
        (br_if $w4_done (i32.ge_u (local.get $col) (local.get $end)))
        (local.set $c0 (v128.load (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2)))))
        (local.set $i (i32.const 0))
        (block $t_done
          (loop $t
            (br_if $t_done (i32.ge_u (local.get $i) (local.get $count)))
            (local.set $r (i32.add (i32.add (local.get $codes) (local.get $col))
              (i32.mul (i32.wrap_i64 (i64.load (i32.add (local.get $rows) (i32.shl (local.get $i) (i32.const 3))))) (local.get $n))))
            (local.set $c0 (f32x4.add (local.get $c0) (f32x4.add
              (f32x4.mul
                (v128.load32_splat (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))
                (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (i16x8.extend_low_i8x16_u
                  (v128.load32_zero (local.get $r))))))
              (v128.load32_splat (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $t)))
        (v128.store (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2))) (local.get $c0))
        (local.set $col (i32.add (local.get $col) (i32.const 4)))
        (br $w4)))
    ;; one at a time
    (block $w1_done
      (loop $w1
        (br_if $w1_done (i32.ge_u (local.get $col) (local.get $n)))
        (local.set $o (f32.load (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2)))))
        (local.set $i (i32.const 0))
        (block $t_done
          (loop $t
            (br_if $t_done (i32.ge_u (local.get $i) (local.get $count)))
            (local.set $r (i32.add (i32.add (local.get $codes) (local.get $col))
              (i32.mul (i32.wrap_i64 (i64.load (i32.add (local.get $rows) (i32.shl (local.get $i) (i32.const 3))))) (local.get $n))))
            (local.set $o (f32.add (local.get $o) (f32.add
              (f32.mul
                (f32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))
                (f32.convert_i32_u (i32.load8_u (local.get $r))))
              (f32.load (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $t)))
        (f32.store (i32.add (local.get $dst) (i32.shl (local.get $col) (i32.const 2))) (local.get $o))
        (local.set $col (i32.add (local.get $col) (i32.const 1)))
        (br $w1))))
)
