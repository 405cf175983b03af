package view

import (
	"fmt"

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

// The page's palette (Okabe–Ito hues, distinguishable with the common
// colour-vision deficiencies) on a dark background.
var (
	Background = hex(0x0f1115)
	Panel      = hex(0x171a21)
	FutureCell = hex(0x1d2129) // positions not decoded yet
	GoneCell   = hex(0x3b2a26) // evicted long ago: the fade's end

	roleColor = [...]RGBA{
		sim.Future:  FutureCell,
		sim.Evicted: hex(0xd55e00), // vermillion, at the step of eviction
		sim.Sink:    hex(0xcc79a7), // reddish purple
		sim.Heavy:   hex(0xe69f00), // orange
		sim.Recent:  hex(0x56b4e9), // sky blue
		sim.Kept:    hex(0x009e73), // bluish green
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

// Storage shading: a cached cell's role colour is scaled by this factor.
var storageShade = [...]float32{
	sim.NotStored: 1,
	sim.Full:      1,    // FP16 / float32: full brightness
	sim.Quantized: 0.62, // integer codes
	sim.LowRank:   0.42, // rank-r coefficients
}

// RoleColor returns the colour of a role at full brightness (the legend's swatch).
func RoleColor(r sim.Role) RGBA {
	if int(r) < len(roleColor) {
		return roleColor[r]
	}
	return FutureCell
}

// StorageShade returns the brightness factor of a storage kind.
func StorageShade(s sim.Storage) float32 {
	if int(s) < len(storageShade) {
		return storageShade[s]
	}
	return 1
}

// CellColor returns the colour of a cell at a step: its role's colour,
// shaded by storage for cached cells; an evicted cell fades linearly from
// the eviction colour to GoneCell over FadeSteps after it left.
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
	k := StorageShade(c.Storage)
	base := RoleColor(c.Role)
	return RGBA{base.R * k, base.G * k, base.B * k, 1}
}

// rolePriority orders roles for a column that stands for several tokens:
// the rarer, more telling role wins.
var rolePriority = [...]uint8{sim.Future: 0, sim.Evicted: 1, sim.Kept: 2, sim.Recent: 3, sim.Heavy: 4, sim.Sink: 5}

// Dominates reports whether a should colour a shared column rather than b:
// the higher-priority role (sink > heavy > recent > kept > evicted >
// future), and among evicted cells the one that left last.
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
