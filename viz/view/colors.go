package view

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/sim"
)

// RGBA is a colour with components in [0, 1], not premultiplied.
type RGBA struct{ R, G, B, A float32 }

// Hex returns the colour as CSS "#rrggbb" (alpha dropped).
func (c RGBA) Hex() string {
	return fmt.Sprintf("#%02x%02x%02x", to8(c.R), to8(c.G), to8(c.B))
}

// RGB8 returns the 8-bit components of c (alpha dropped).
func (c RGBA) RGB8() (r, g, b uint8) { return to8(c.R), to8(c.G), to8(c.B) }

func to8(v float32) uint8 {
	v = max(0, min(1, v))
	return uint8(v*255 + 0.5)
}

func hex(v uint32) RGBA {
	return RGBA{float32(v>>16&0xff) / 255, float32(v>>8&0xff) / 255, float32(v&0xff) / 255, 1}
}

// The page's palette on a dark background, from the Okabe–Ito hues,
// chosen so that every pair of roles stays apart for viewers with the
// common red–green deficiencies as well (TestRoleColoursStayApart: CIEDE2000
// ≥ 20 under simulated deuteranopia and protanopia). Those viewers see
// roughly a blue–yellow axis and lightness, so the roles spread along
// both: near-white sinks, yellow heavy hitters, sky-blue recent tokens,
// dark-blue kept tokens and vermillion evictions.
var (
	Background = hex(0x0f1115)
	Panel      = hex(0x171a21)
	FutureCell = hex(0x1d2129) // positions not decoded yet
	GoneCell   = hex(0x3b2a26) // evicted long ago: the fade's end

	roleColor = [...]RGBA{
		sim.Future:  FutureCell,
		sim.Evicted: hex(0xd55e00), // vermillion, at the step of eviction
		sim.Sink:    hex(0xe8e8e8), // near white: the anchor
		sim.Heavy:   hex(0xf0e442), // yellow
		sim.Recent:  hex(0x56b4e9), // sky blue
		sim.Kept:    hex(0x0072b2), // blue
		// muted reddish purple: gone by the architecture's own rule, steady
		sim.Windowed: hex(0x8c5d7e),
	}

	// Attention bars: full (uncompressed) attention outlined behind the
	// compressed cache's attention.
	AttnFull       = hex(0x5b6270)
	AttnCompressed = hex(0xf0e442)

	// Sparklines of A and B in compare mode.
	SparkA = hex(0xf0e442)
	SparkB = hex(0x56b4e9)
)

// FadeSteps is how many steps an evicted cell takes to fade from the
// eviction colour to GoneCell.
const FadeSteps = 48

// StripShare is the share of a map row's height given to the storage
// strip at the bottom of each cell (see StripColor).
const StripShare = 0.4

// RoleColor returns the colour of a role at full brightness (the legend's swatch).
func RoleColor(r sim.Role) RGBA {
	if int(r) < len(roleColor) {
		return roleColor[r]
	}
	return FutureCell
}

// CellColor returns the colour of a cell at a step: its role's colour; an
// evicted cell fades linearly from the eviction colour to GoneCell over
// FadeSteps after it left. It is the colour of the cell's upper part; the
// strip under it tells how the token is stored (StripColor).
func CellColor(c *sim.Cell, step int) RGBA {
	switch c.Role {
	case sim.Future:
		return FutureCell
	case sim.Evicted:
		age := float32(step - int(c.EvictedAt))
		if c.EvictedAt < 0 || age >= FadeSteps {
			return GoneCell
		}
		t := max(0, age) / FadeSteps
		e := roleColor[sim.Evicted]
		return RGBA{e.R + (GoneCell.R-e.R)*t, e.G + (GoneCell.G-e.G)*t, e.B + (GoneCell.B-e.B)*t, 1}
	}
	return RoleColor(c.Role)
}

// ErrorShade returns the brightness of a cached token's storage strip for
// its key error: 1 for an exact key, falling on a log scale from 0.1 %
// (INT8 keys sit near 0.5 %) to 0.15 at 50 % and beyond (INT2). So FP16,
// INT8, INT4 and INT2 runs look different at a glance.
func ErrorShade(kerr float32) float32 {
	if !(kerr > 1e-3) { // also NaN
		return 1
	}
	t := float32(math.Log10(float64(kerr)/1e-3) / math.Log10(0.5/1e-3))
	t = min(1, t)
	return 1 - 0.85*t
}

// StripColor returns the colour of the strip at the bottom of a cell: for
// a cached token its role colour dimmed by its key error (ErrorShade), so
// the strip darkens as storage bends the key; otherwise CellColor.
func StripColor(c *sim.Cell, step int) RGBA {
	base := CellColor(c, step)
	if c.Role == sim.Future || c.Role == sim.Evicted {
		return base
	}
	k := ErrorShade(c.KErr)
	return RGBA{base.R * k, base.G * k, base.B * k, 1}
}

// rolePriority orders roles for a column that stands for several tokens:
// the rarer, more telling role wins.
var rolePriority = [...]uint8{sim.Future: 0, sim.Windowed: 1, sim.Evicted: 2, sim.Kept: 3, sim.Recent: 4, sim.Heavy: 5, sim.Sink: 6}

// Dominates reports whether a should colour a shared column rather than b:
// the higher-priority role (sink > heavy > recent > kept > evicted >
// outside the model's window > future), and among evicted cells the one
// that left last.
func Dominates(a, b *sim.Cell) bool {
	pa, pb := priority(a.Role), priority(b.Role)
	if pa != pb {
		return pa > pb
	}
	return a.Role == sim.Evicted && a.EvictedAt > b.EvictedAt
}

func priority(r sim.Role) uint8 {
	if int(r) < len(rolePriority) {
		return rolePriority[r]
	}
	return 0
}
