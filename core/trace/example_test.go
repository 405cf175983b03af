package trace_test

import (
	"bytes"
	"fmt"

	"github.com/kvscope/kvscope/core/trace"
)

// A trace of 2 layers, 3 tokens, 4 query heads sharing 2 key/value heads
// (grouped-query attention) and 2 dimensions per head, written as an .npz
// archive and read back.
func Example() {
	t := &trace.Trace{Layers: 2, Tokens: 3, QHeads: 4, KVHeads: 2, Dim: 2}
	t.Q = make([]float32, 2*3*4*2)
	t.K = make([]float32, 2*3*2*2)
	t.V = make([]float32, 2*3*2*2)
	for i := range t.K {
		t.K[i] = float32(i)
	}
	var npz bytes.Buffer
	if err := trace.Write(&npz, t); err != nil {
		panic(err)
	}
	r, err := trace.Read(bytes.NewReader(npz.Bytes()), int64(npz.Len()))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d layers, %d tokens, %d query heads over %d kv heads, dim %d\n",
		r.Layers, r.Tokens, r.QHeads, r.KVHeads, r.Dim)
	q := 3
	fmt.Printf("query head %d reads kv head %d; its key at layer 1, token 2: %v\n",
		q, r.KVHead(q), r.KAt(1, 2, r.KVHead(q)))
	// Output:
	// 2 layers, 3 tokens, 4 query heads over 2 kv heads, dim 2
	// query head 3 reads kv head 1; its key at layer 1, token 2: [22 23]
}
