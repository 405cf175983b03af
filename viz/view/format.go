package view

import (
	"math"
	"strconv"
	"strings"
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

// Sig formats v with at most digits significant digits, in plain
// notation (never an exponent: a learner reads 0.0000752, not 7.52e-05);
// trailing zeros after the point are dropped, and a whole number keeps
// all its digits ("1234567"). A magnitude below 0.000001 but not
// zero prints "<0.000001" ("−<0.000001" below zero): tiny, not its digits.
func Sig(v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-6 {
		if v < 0 {
			return "−<0.000001"
		}
		return "<0.000001"
	}
	dec := max(digits-1-int(math.Floor(math.Log10(a))), 0)
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if dec > 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Percent formats a share in [0, 1] as "97.3%": three significant
// digits, never an exponent. A share below 0.01 % but above zero prints
// "<0.01%" (and "−<0.01%" below zero): a reader needs to know it is tiny,
// not its twelfth decimal.
func Percent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	p := v * 100
	switch {
	case p == 0:
		return "0%"
	case p > 0 && p < 0.01:
		return "<0.01%"
	case p < 0 && p > -0.01:
		return "−<0.01%"
	}
	if math.Abs(p) >= 1e6 {
		return strconv.FormatFloat(p, 'f', 0, 64) + "%"
	}
	return Sig(p, 3) + "%"
}

// Saving describes stored bytes against the FP16 history's: "7.14×
// smaller than", "1.12× larger than" or "the same size as", followed by
// the caller's noun; with nothing stored or no history yet it says so.
func Saving(full, stored float64) string {
	switch {
	case full <= 0 || math.IsNaN(full) || math.IsNaN(stored):
		return "nothing decoded yet, so nothing to compare with"
	case stored <= 0:
		return "nothing stored"
	case stored < full:
		return Sig(full/stored, 3) + "× smaller than the FP16 history"
	case stored > full:
		return Sig(stored/full, 3) + "× larger than the FP16 history"
	}
	return "the same size as the FP16 history"
}

// Ratio formats a compression ratio a/b as "31.2×" ("–" when b is 0).
func Ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return Sig(a/b, 3) + "×"
}

// Nats formats a KL divergence or log-probability difference in nats with
// three significant digits and no exponent: "0.163 nats"; a value between
// 0 and 0.0001 prints "<0.0001 nats".
func Nats(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case v > 0 && v < 1e-4:
		return "<0.0001 nats"
	case v < 0 && v > -1e-4:
		return "−<0.0001 nats"
	}
	return Sig(v, 3) + " nats"
}

// Seconds formats a duration in seconds for a reader: "0.42 s", "12.3 s",
// "95 s"; "–" for a negative or non-finite one.
func Seconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return "–"
	}
	return Sig(s, 2+min(1, int(s/10))) + " s"
}
