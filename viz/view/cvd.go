package view

import "math"

// Colour-vision deficiency simulation and colour difference, so that tests
// can check that the map's colours stay apart for every visitor.

// CVD is a simulated colour-vision deficiency.
type CVD int

// The deficiencies simulated: none, and the two common red–green ones at
// full severity (dichromacy).
const (
	NormalVision CVD = iota
	Deuteranopia
	Protanopia
)

// machado holds Machado, Oliveira and Fernandes' (2009) matrices at
// severity 1.0, which act on linear RGB.
var machado = [...][3][3]float64{
	NormalVision: {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	Deuteranopia: {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
	Protanopia:   {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
}

func toLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// Simulate returns how c looks to a viewer with deficiency d (the result
// clamped to the sRGB gamut, in linear RGB).
func Simulate(c RGBA, d CVD) [3]float64 {
	lin := [3]float64{toLinear(float64(c.R)), toLinear(float64(c.G)), toLinear(float64(c.B))}
	m := machado[d]
	var out [3]float64
	for i := range out {
		v := m[i][0]*lin[0] + m[i][1]*lin[1] + m[i][2]*lin[2]
		out[i] = math.Max(0, math.Min(1, v))
	}
	return out
}

// lab converts linear sRGB to CIELAB (D65).
func lab(lin [3]float64) [3]float64 {
	x := 0.4124564*lin[0] + 0.3575761*lin[1] + 0.1804375*lin[2]
	y := 0.2126729*lin[0] + 0.7151522*lin[1] + 0.0721750*lin[2]
	z := 0.0193339*lin[0] + 0.1191920*lin[1] + 0.9503041*lin[2]
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	fx, fy, fz := f(x/0.95047), f(y), f(z/1.08883)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// DeltaE2000 is the CIEDE2000 colour difference between a and b as seen
// with deficiency d. About 2 is the smallest difference people notice side
// by side; telling categories apart in small cells needs far more.
func DeltaE2000(a, b RGBA, d CVD) float64 {
	return ciede2000(lab(Simulate(a, d)), lab(Simulate(b, d)))
}

// ciede2000 implements Sharma, Wu and Dalal's (2005) formulation.
func ciede2000(l1, l2 [3]float64) float64 {
	const kL, kC, kH = 1, 1, 1
	deg := math.Pi / 180
	c1 := math.Hypot(l1[1], l1[2])
	c2 := math.Hypot(l2[1], l2[2])
	cm := (c1 + c2) / 2
	g := 0.5 * (1 - math.Sqrt(math.Pow(cm, 7)/(math.Pow(cm, 7)+math.Pow(25, 7))))
	a1, a2 := (1+g)*l1[1], (1+g)*l2[1]
	c1p, c2p := math.Hypot(a1, l1[2]), math.Hypot(a2, l2[2])
	h := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		v := math.Atan2(b, a) / deg
		if v < 0 {
			v += 360
		}
		return v
	}
	h1, h2 := h(l1[2], a1), h(l2[2], a2)
	dL := l2[0] - l1[0]
	dC := c2p - c1p
	var dh float64
	switch {
	case c1p*c2p == 0:
		dh = 0
	case math.Abs(h2-h1) <= 180:
		dh = h2 - h1
	case h2-h1 > 180:
		dh = h2 - h1 - 360
	default:
		dh = h2 - h1 + 360
	}
	dH := 2 * math.Sqrt(c1p*c2p) * math.Sin(dh/2*deg)
	lm := (l1[0] + l2[0]) / 2
	cmp := (c1p + c2p) / 2
	var hm float64
	switch {
	case c1p*c2p == 0:
		hm = h1 + h2
	case math.Abs(h1-h2) <= 180:
		hm = (h1 + h2) / 2
	case h1+h2 < 360:
		hm = (h1 + h2 + 360) / 2
	default:
		hm = (h1 + h2 - 360) / 2
	}
	t := 1 - 0.17*math.Cos((hm-30)*deg) + 0.24*math.Cos(2*hm*deg) + 0.32*math.Cos((3*hm+6)*deg) - 0.20*math.Cos((4*hm-63)*deg)
	dTheta := 30 * math.Exp(-math.Pow((hm-275)/25, 2))
	rc := 2 * math.Sqrt(math.Pow(cmp, 7)/(math.Pow(cmp, 7)+math.Pow(25, 7)))
	sl := 1 + 0.015*math.Pow(lm-50, 2)/math.Sqrt(20+math.Pow(lm-50, 2))
	sc := 1 + 0.045*cmp
	sh := 1 + 0.015*cmp*t
	rt := -math.Sin(2*dTheta*deg) * rc
	return math.Sqrt(math.Pow(dL/(kL*sl), 2) + math.Pow(dC/(kC*sc), 2) + math.Pow(dH/(kH*sh), 2) + rt*(dC/(kC*sc))*(dH/(kH*sh)))
}
