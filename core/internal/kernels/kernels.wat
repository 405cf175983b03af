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
  ;; to one running sum).
  (func (export "abi_version") (result i32) (i32.const 2))

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
)
