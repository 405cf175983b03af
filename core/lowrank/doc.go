// Package lowrank fits and applies rank-r bases for attention heads: each
// cached key or value of dimension d is stored as r coefficients on an
// orthonormal r×d basis, so q·k ≈ (Bq)·(Bk), and whole n×d matrices are
// approximated by thin SVD factors (K ≈ U Σ Vᵀ).
//
// Fit takes the basis from an exact thin SVD, FitRandomized from a
// randomized one (a Gaussian sketch and power iterations), and Approximate
// keeps the whole truncated factorization.
//
// # Its own SVD
//
// The SVD is kvscope's own (svd.go: Householder QR with column pivoting,
// then one-sided Jacobi rotations on Rᵀ, after Drmač and Veselić), held
// to gonum's LAPACK in the tests, the only code that imports gonum. The
// reason is the page's download: Ebiten's shader templates use
// text/template, whose reflection makes Go's linker keep every exported
// method of every reachable type, so importing gonum/mat for one SVD
// pulled nearly all of BLAS and LAPACK (2.5 MB of WebAssembly) into
// main.wasm. BenchmarkFitSim times a fit on the simulator's 256
// calibration tokens at head dims 32 to 128.
package lowrank
