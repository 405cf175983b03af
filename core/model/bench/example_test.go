package bench_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model/bench"
)

func ExampleTable() {
	fmt.Print(bench.Table("wllama", []bench.Row{
		{File: "stories15M F32", KVScope: bench.Figures{Decode: 300, Prompt: 900}, Peer: bench.Figures{Decode: 200, Prompt: 1800}},
	}))
	// Output:
	// | file | decode tok/s: wllama | kvscope | kvscope ÷ wllama | prompt (135 tokens) tok/s: wllama | kvscope | kvscope ÷ wllama |
	// |---|---:|---:|---:|---:|---:|---:|
	// | stories15M F32 | 200 | 300 | 1.50 | 1800 | 900 | 0.50 |
}
