package synth_test

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/synth"
)

// A decoder's view of the stream: each position's query attends, by
// softmax(q·k/√d), to every key so far, its own included. The summary shows
// what kind of head each is: sink heads put most of their attention on the
// first four tokens, local heads on the last sixteen.
func Example() {
	c := synth.DefaultConfig()
	g, err := synth.New(c)
	if err != nil {
		panic(err)
	}
	const steps = 256
	d := c.HeadDim
	q := make([]float32, g.QLen())
	keys := make([]float32, steps*g.KVLen()) // [position][head][HeadDim]; one layer, KVHeads == Heads
	values := make([]float32, steps*g.KVLen())
	w := make([]float64, steps)
	var sinks, recent [8]float64
	for t := range steps {
		g.Next(q, keys[t*g.KVLen():], values[t*g.KVLen():])
		if t < 64 {
			continue
		}
		for h := range c.Heads {
			attention(w[:t+1], q[h*d:(h+1)*d], keys, h, c.Heads, d)
			sinks[h] += (w[0] + w[1] + w[2] + w[3]) / (steps - 64)
			for s := t - 15; s <= t; s++ {
				recent[h] += w[s] / (steps - 64)
			}
		}
	}
	fmt.Println("head  kind       first 4  last 16")
	for h := range c.Heads {
		fmt.Printf("%4d  %-9s  %6.0f%%  %6.0f%%\n", h, g.HeadKind(0, h), 100*sinks[h], 100*recent[h])
	}
	// Output:
	// head  kind       first 4  last 16
	//    0  mixed          12%      19%
	//    1  local           4%      43%
	//    2  sink           47%       3%
	//    3  mixed          23%      21%
	//    4  local           6%      39%
	//    5  retrieval       4%      21%
	//    6  sink           74%       4%
	//    7  retrieval       2%      14%
}

// attention sets w to head h's softmax(q·k/√d) over positions 0..len(w)−1
// of keys laid out [position][heads][d].
func attention(w []float64, q, keys []float32, h, heads, d int) {
	hi := math.Inf(-1)
	for s := range w {
		k := keys[(s*heads+h)*d : (s*heads+h+1)*d]
		var dot float64
		for i := range q {
			dot += float64(q[i]) * float64(k[i])
		}
		w[s] = dot / math.Sqrt(float64(d))
		hi = max(hi, w[s])
	}
	var sum float64
	for s := range w {
		w[s] = math.Exp(w[s] - hi)
		sum += w[s]
	}
	for s := range w {
		w[s] /= sum
	}
}
