;; A stand-in for a Go program that links core/internal/kernels, for
;; glue_test.js: it imports two of the kernels the way the Go module does
;; and exports its memory as "mem", as Go's does.
(module
  (import "kvscope_kernels" "present" (func $present (result i32)))
  (import "kvscope_kernels" "dot_f32" (func $dot (param i32 i32 i32) (result f32)))
  (memory (export "mem") 1)
  (func (export "present") (result i32) (call $present))
  (func (export "dot") (param i32 i32 i32) (result f32)
    (call $dot (local.get 0) (local.get 1) (local.get 2)))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))
