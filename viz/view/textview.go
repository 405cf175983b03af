package view

import (
	"strconv"

	"github.com/kvscope/kvscope/core/sim"
)

// TokenMark is what the text view shows of one position: the role it
// takes on, and the share of the layer's KV heads that still hold it.
type TokenMark struct {
	Role  sim.Role
	Share float32 // 0…1; for one head, 1 while it holds the token and 0 once not
}

// AllHeads is the text view's head setting for "the share of heads that
// still hold each token".
const AllHeads = -1

// MarkOf returns position p's mark in s (0 ≤ p < s.Step). For a head h
// of the layer (0 ≤ h < s.Heads) it is that head's role; for AllHeads (or
// a head the layer lacks) it is the role most heads holding the token
// give it — ties go to the role drawn on top (sink, then heavy hitter,
// recent, kept) — or, when no head holds it, evicted (windowed when the
// model's own window dropped it). It costs O(Heads).
func MarkOf(s *sim.Snapshot, h, p int) TokenMark {
	if h >= 0 && h < s.Heads {
		r := s.Cells[h*s.Step+p].Role
		if r.Held() {
			return TokenMark{r, 1}
		}
		return TokenMark{r, 0}
	}
	var n [sim.NumRoles]int
	held := 0
	for hd := 0; hd < s.Heads; hd++ {
		r := s.Cells[hd*s.Step+p].Role
		if int(r) < sim.NumRoles {
			n[r]++
		}
		if r.Held() {
			held++
		}
	}
	if held == 0 {
		if n[sim.Windowed] > n[sim.Evicted] {
			return TokenMark{sim.Windowed, 0}
		}
		return TokenMark{sim.Evicted, 0}
	}
	best := sim.Sink
	for _, r := range []sim.Role{sim.Heavy, sim.Recent, sim.Kept} {
		if n[r] > n[best] {
			best = r
		}
	}
	return TokenMark{best, float32(held) / float32(s.Heads)}
}

// TextView keeps the marks a page last wrote for each position of its
// text view, so that a frame rewrites only the positions whose mark
// changed. The zero value is an empty view.
type TextView struct {
	marks []TokenMark
}

// Len returns how many positions the view holds.
func (tv *TextView) Len() int { return len(tv.marks) }

// Mark returns position p's mark as last updated.
func (tv *TextView) Mark(p int) TokenMark { return tv.marks[p] }

// Update brings the view to s's positions for head h (see MarkOf) and
// appends to dst the positions below the view's previous length whose
// mark changed; it returns dst and that previous length. Positions from
// the previous length to s.Step are new, and a view longer than s.Step
// (a run replayed from its start) is cut to it. It costs O(Step·Heads)
// and allocates only when the view grows past its capacity or dst does.
func (tv *TextView) Update(s *sim.Snapshot, h int, dst []int) ([]int, int) {
	old := min(len(tv.marks), s.Step)
	tv.marks = tv.marks[:old]
	for p := 0; p < old; p++ {
		if m := MarkOf(s, h, p); m != tv.marks[p] {
			tv.marks[p] = m
			dst = append(dst, p)
		}
	}
	for p := old; p < s.Step; p++ {
		tv.marks = append(tv.marks, MarkOf(s, h, p))
	}
	return dst, old
}

// Reset empties the view.
func (tv *TextView) Reset() { tv.marks = tv.marks[:0] }

// TokenLabel returns the text the view shows for position p of s: the
// real model's token (its own spaces and line breaks included; "BOS" for
// an empty first token), or for the synthetic stream, whose tokens have
// no text, the position's number and a space.
func TokenLabel(s *sim.Snapshot, p int) string {
	if p < len(s.Tokens) {
		if t := s.Tokens[p]; t != "" {
			return t
		}
		if p == 0 {
			return "BOS"
		}
		return "·"
	}
	return strconv.Itoa(p) + " "
}
