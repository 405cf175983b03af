package view

import (
	"math"
	"strconv"
)

// Bytes formats a byte count with binary units: "512 B", "1.5 KiB",
// "16 GiB". Three significant digits at most; negative counts get a sign.
func Bytes(n float64) string {
	if math.IsNaN(n) {
		return "–"
	}
	sign := ""
	if n < 0 {
		sign, n = "−", -n
	}
	units := [...]string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	u := 0
	for n >= 1024 && u < len(units)-1 {
		n /= 1024
		u++
	}
	if u == 0 {
		return sign + strconv.FormatFloat(math.Round(n), 'f', 0, 64) + " B"
	}
	return sign + Sig(n, 3) + " " + units[u]
}

// Sig formats v with at most digits significant digits and no exponent
// for magnitudes in [1e-4, 1e6); trailing zeros are dropped.
func Sig(v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-4 || a >= 1e6 {
		return strconv.FormatFloat(v, 'e', digits-1, 64)
	}
	dec := digits - 1 - int(math.Floor(math.Log10(a)))
	dec = max(dec, 0)
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if dec > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	return s
}

// Percent formats a share in [0, 1] as "97.3%".
func Percent(v float64) string { return Sig(v*100, 3) + "%" }

// Ratio formats a compression ratio a/b as "31.2×" ("–" when b is 0).
func Ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return Sig(a/b, 3) + "×"
}
